package tickettool

import (
	"context"
	"fmt"
	"path"
	"strings"

	"github.com/bonsai-run/bonsai/internal/board"
)

// maxAgentFiles is how many files one comment or move attaches.
const maxAgentFiles = 8

// attachSchema is the "attach" property of a tool's arguments.
const attachSchema = `"attach":{"type":"array","maxItems":8,"items":{"type":"string"},` +
	`"description":"worktree paths of files to attach (a screenshot, a log): regular files, not links"}`

// Attacher is what attaching files asks of the board (store.Attachments);
// a board without it refuses attach arguments.
type Attacher interface {
	AddAttachment(ctx context.Context, ref board.Ref, a board.NewAttachment, limits board.AttachmentLimits) (board.Attachment, error)
}

// limits are the run's attachment limits: the configured ones, else the
// defaults.
func (s *Session) limits() board.AttachmentLimits {
	if s.cfg.Attachments.File > 0 {
		return s.cfg.Attachments
	}
	return board.DefaultAttachmentLimits
}

// readFiles reads worktree files to attach, through the executor, before
// anything is posted: a path that leaves the worktree, names a link (or
// goes through one), is not a regular file or is over the limit (checked
// before it is read) is a refusal, and so is a board that keeps no files.
func (s *Session) readFiles(ctx context.Context, paths []string) ([]board.NewAttachment, string) {
	if len(paths) == 0 {
		return nil, ""
	}
	if _, ok := s.cfg.Board.(Attacher); !ok {
		return nil, "this board keeps no attachments; describe the files instead"
	}
	if len(paths) > maxAgentFiles {
		return nil, fmt.Sprintf("%d files to attach; at most %d", len(paths), maxAgentFiles)
	}
	l := s.limits()
	var out []board.NewAttachment
	var total int64
	for _, p := range paths {
		data, problem := s.readFile(ctx, p, l)
		if problem != "" {
			return nil, problem
		}
		if err := l.Check(path.Base(p), int64(len(data)), total); err != nil {
			return nil, err.Error()
		}
		total += int64(len(data))
		out = append(out, board.NewAttachment{Name: path.Base(p), Data: data, AuthorType: board.Agent, AuthorName: s.cfg.Author})
	}
	return out, ""
}

// readFile reads one worktree file within the per-file limit, refusing
// links anywhere on its path.
func (s *Session) readFile(ctx context.Context, p string, l board.AttachmentLimits) ([]byte, string) {
	ex := s.cfg.Exec
	rel, err := ex.Rel(p)
	if err != nil || rel == "." {
		return nil, fmt.Sprintf("cannot attach %s: give a file's path inside the worktree", p)
	}
	parts := strings.Split(rel, "/")
	for i := range parts {
		st, err := ex.Stat(ctx, strings.Join(parts[:i+1], "/"))
		if err != nil {
			return nil, fmt.Sprintf("cannot attach %s: %v", p, err)
		}
		if st.Symlink {
			return nil, fmt.Sprintf("cannot attach %s: %s is a symbolic link; attach the file itself", p, strings.Join(parts[:i+1], "/"))
		}
		if i == len(parts)-1 {
			if st.Dir || !st.Mode.IsRegular() {
				return nil, fmt.Sprintf("cannot attach %s: not a regular file", p)
			}
			if l.File > 0 && st.Size > l.File {
				return nil, l.FileTooLarge(path.Base(rel), st.Size).Error()
			}
		}
	}
	data, err := ex.ReadFile(ctx, rel)
	if err != nil {
		return nil, fmt.Sprintf("cannot attach %s: %v", p, err)
	}
	if l.File > 0 && int64(len(data)) > l.File {
		return nil, l.FileTooLarge(path.Base(rel), int64(len(data))).Error()
	}
	return data, ""
}

// attachFiles attaches files to the agent's comment and names them.
func (s *Session) attachFiles(ctx context.Context, commentID string, files []board.NewAttachment) (string, error) {
	if len(files) == 0 {
		return "", nil
	}
	b := s.cfg.Board.(Attacher)
	var names []string
	for _, f := range files {
		f.CommentID = commentID
		a, err := b.AddAttachment(ctx, s.cfg.Ref, f, s.limits())
		if err != nil {
			return "", err
		}
		names = append(names, fmt.Sprintf("%s (%s, %s)", a.Name, a.MediaType, board.HumanSize(a.Size)))
	}
	return " Attached " + strings.Join(names, ", ") + ".", nil
}
