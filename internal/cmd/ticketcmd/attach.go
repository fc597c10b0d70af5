package ticketcmd

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/spf13/pflag"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/cmd/cmdkit"
	"github.com/bonsai-run/bonsai/internal/store"
)

// addAttachFlag adds the repeatable --attach PATH flag.
func addAttachFlag(f *pflag.FlagSet, paths *[]string) {
	f.StringArrayVar(paths, "attach", nil, "attach a file: a screenshot, a log, a PDF (repeat for several; docs/attachments.md)")
}

// attachLimits are config.json's attachment limits, the defaults when it
// cannot be read (the store refuses what breaks them either way).
func attachLimits(a *cmdkit.App) board.AttachmentLimits {
	cfg, err := a.Config()
	if err != nil {
		return board.DefaultAttachmentLimits
	}
	return cfg.Attachments.Limits()
}

// readAttachments reads the files to attach before anything is written,
// so a file that cannot be attached changes nothing. A file must be a
// regular file within the per-file limit, which is checked before it is
// read; together they must fit a ticket.
func readAttachments(a *cmdkit.App, paths []string, l board.AttachmentLimits) ([]board.NewAttachment, error) {
	var out []board.NewAttachment
	var total int64
	for _, p := range paths {
		data, err := readAttachment(p, l)
		if err != nil {
			return nil, err
		}
		total += int64(len(data))
		if err := l.Check(filepath.Base(p), int64(len(data)), total-int64(len(data))); err != nil {
			return nil, err
		}
		out = append(out, board.NewAttachment{Name: filepath.Base(p), Data: data, AuthorType: board.Human, AuthorName: a.Author()})
	}
	return out, nil
}

// readAttachment reads one file, refusing what is not a regular file or
// is over the per-file limit without reading it all.
func readAttachment(p string, l board.AttachmentLimits) ([]byte, error) {
	f, err := os.Open(p)
	if err != nil {
		return nil, cmdkit.Usagef("--attach %s: %v", p, err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, cmdkit.Usagef("--attach %s: %v", p, err)
	}
	if !st.Mode().IsRegular() {
		return nil, cmdkit.Usagef("--attach %s is not a regular file; attach a file", p)
	}
	if l.File > 0 && st.Size() > l.File {
		return nil, l.FileTooLarge(filepath.Base(p), st.Size())
	}
	r := io.Reader(f)
	if l.File > 0 {
		r = io.LimitReader(f, l.File+1)
	}
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, cmdkit.Usagef("--attach %s: %v", p, err)
	}
	if l.File > 0 && int64(len(data)) > l.File {
		return nil, l.FileTooLarge(filepath.Base(p), int64(len(data)))
	}
	return data, nil
}

// storeAttachments attaches files to the ticket (to its comment when
// commentID is set) and says so, one line each.
func storeAttachments(ctx context.Context, a *cmdkit.App, s store.Store, ref board.Ref, commentID string,
	files []board.NewAttachment, l board.AttachmentLimits) error {
	for _, f := range files {
		f.CommentID = commentID
		at, err := s.AddAttachment(ctx, ref, f, l)
		if err != nil {
			return err
		}
		fmt.Fprintf(a.Stdout, "Attached %s (%s, %s) to %s\n", at.Name, at.MediaType, board.HumanSize(at.Size), ref)
	}
	return nil
}

// lastFeedback returns the ID of the ticket's newest feedback comment,
// the one a return just wrote.
func lastFeedback(ctx context.Context, s store.Store, ref board.Ref) (string, error) {
	cs, err := s.Comments(ctx, ref)
	if err != nil {
		return "", err
	}
	for i := len(cs) - 1; i >= 0; i-- {
		if cs[i].Kind == board.KindFeedback {
			return cs[i].ID, nil
		}
	}
	return "", nil
}

// attachFeedback attaches files to the feedback comment a return wrote.
func attachFeedback(ctx context.Context, a *cmdkit.App, ref board.Ref, files []board.NewAttachment, l board.AttachmentLimits) error {
	if len(files) == 0 {
		return nil
	}
	s, err := a.OpenStore(ctx)
	if err != nil {
		return err
	}
	id, err := lastFeedback(ctx, s, ref)
	if err != nil {
		return err
	}
	return storeAttachments(ctx, a, s, ref, id, files, l)
}
