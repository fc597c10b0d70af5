package web

import (
	"context"
	"net/http"
	"strings"

	"github.com/bonsai-run/bonsai/internal/board"
)

// DiffFunc returns the unified diff of a ticket's branch against the
// project's default branch, or "" when the branch does not exist yet.
type DiffFunc func(ctx context.Context, p board.Project, t board.Ticket) (string, error)

// maxDiffLines is the most diff lines a page shows.
const maxDiffLines = 5000

// diffFile is one file of a diff.
type diffFile struct {
	Name       string
	Added      int
	Deleted    int
	Lines      []diffLine
	Binary     bool
	Status     string // "added", "deleted", "renamed" or ""
	oldN, newN string
}

type diffLine struct {
	Kind string // "add", "del", "hunk" or "ctx"
	Text string
}

type diffView struct {
	Branch    string
	Base      string
	Files     []diffFile
	Added     int
	Deleted   int
	Truncated bool
	Empty     bool // the branch exists but has no changes
	NoBranch  bool
}

// parseDiff splits `git diff` output into files with their lines.
func parseDiff(text string) (files []diffFile, truncated bool) {
	var cur *diffFile
	n := 0
	for _, line := range strings.Split(strings.TrimRight(text, "\n"), "\n") {
		if strings.HasPrefix(line, "diff --git ") {
			files = append(files, diffFile{})
			cur = &files[len(files)-1]
			a, b, _ := strings.Cut(strings.TrimPrefix(line, "diff --git "), " b/")
			cur.oldN, cur.newN = strings.TrimPrefix(a, "a/"), b
			cur.Name = b
			continue
		}
		if cur == nil {
			continue
		}
		switch {
		case strings.HasPrefix(line, "new file mode"):
			cur.Status = "added"
		case strings.HasPrefix(line, "deleted file mode"):
			cur.Status, cur.Name = "deleted", cur.oldN
		case strings.HasPrefix(line, "rename from "):
			cur.Status = "renamed"
		case strings.HasPrefix(line, "Binary files"):
			cur.Binary = true
		case strings.HasPrefix(line, "index "), strings.HasPrefix(line, "--- "), strings.HasPrefix(line, "+++ "),
			strings.HasPrefix(line, "similarity index"), strings.HasPrefix(line, "rename to "),
			strings.HasPrefix(line, "old mode"), strings.HasPrefix(line, "new mode"):
		default:
			kind := "ctx"
			switch {
			case strings.HasPrefix(line, "@@"):
				kind = "hunk"
			case strings.HasPrefix(line, "+"):
				kind = "add"
				cur.Added++
			case strings.HasPrefix(line, "-"):
				kind = "del"
				cur.Deleted++
			case strings.HasPrefix(line, `\`):
				kind = "hunk"
			}
			if n >= maxDiffLines {
				truncated = true
				continue
			}
			n++
			cur.Lines = append(cur.Lines, diffLine{Kind: kind, Text: line})
		}
	}
	return files, truncated
}

// ticketDiff renders the changes of the ticket's branch, loaded by the
// ticket page after it shows.
func (s *Server) ticketDiff(w http.ResponseWriter, r *http.Request) error {
	ref, err := pathRef(r)
	if err != nil {
		return err
	}
	if s.opts.Diff == nil {
		return &httpError{status: http.StatusNotFound, code: board.ENOTFOUND, msg: "diffs are not available on this server"}
	}
	p, err := s.store.Project(r.Context(), ref.Project)
	if err != nil {
		return err
	}
	t, err := s.store.Ticket(r.Context(), ref)
	if err != nil {
		return err
	}
	text, err := s.opts.Diff(r.Context(), p, t)
	if err != nil {
		return err
	}
	v := diffView{Branch: t.Branch, Base: p.DefaultBranch}
	switch {
	case text == "" && t.Branch == "":
		v.NoBranch = true
	default:
		v.Files, v.Truncated = parseDiff(text)
		v.Empty = len(v.Files) == 0
	}
	for _, f := range v.Files {
		v.Added += f.Added
		v.Deleted += f.Deleted
	}
	s.fragment(w, r, http.StatusOK, "diff", v)
	return nil
}
