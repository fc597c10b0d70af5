package tools

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/bonsai-run/bonsai/internal/executor"
)

// rgFlags make ripgrep walk the tree like walkFiles: hidden files, no .git,
// .gitignore honoured without needing a repository, and no ignore rules
// from outside the workspace or from other ignore-file kinds.
var rgFlags = []string{"--hidden", "--no-require-git", "--no-ignore-parent", "--no-ignore-global", "--no-ignore-dot", "--no-config", "--glob", "!.git"}

// useRipgrep reports whether grep and find run rg.
func (e *env) useRipgrep(ctx context.Context) bool {
	switch e.opts.Search {
	case SearchGo:
		return false
	case SearchRipgrep:
		return true
	}
	e.rgOnce.Do(func() {
		x, err := e.ex.Exec(ctx, []string{"rg", "--version"}, executor.RunOptions{})
		e.rgOK = err == nil && x.Code == 0
	})
	return e.rgOK
}

// rgArgs adds the ignore files between the root and base, which ripgrep
// does not read when started below them.
func (e *env) rgArgs(ctx context.Context, base string) []string {
	args := append([]string(nil), rgFlags...)
	if base == "." {
		return args
	}
	if st, err := e.ex.Stat(ctx, ".git/info/exclude"); err == nil && !st.Dir {
		args = append(args, "--ignore-file", ".git/info/exclude")
	}
	parts := strings.Split(base, "/")
	for i := range parts {
		f := strings.Join(append(parts[:i:i], ".gitignore"), "/")
		if st, err := e.ex.Stat(ctx, f); err == nil && !st.Dir {
			args = append(args, "--ignore-file", f)
		}
	}
	return args
}

// listFiles returns the files under base that grep and find consider.
func (e *env) listFiles(ctx context.Context, base string) ([]string, error) {
	if !e.useRipgrep(ctx) {
		return walkFiles(ctx, e.ex, base)
	}
	args := append([]string{"rg", "--files", "--null"}, e.rgArgs(ctx, base)...)
	if base != "." {
		args = append(args, "--", base)
	}
	var out, errb bytes.Buffer
	x, err := e.ex.Exec(ctx, args, executor.RunOptions{Output: &out, Stderr: &errb})
	if err != nil {
		return nil, err
	}
	if x.Code == 2 && out.Len() == 0 && !noFiles(errb.String()) {
		return nil, fmt.Errorf("rg: %s", firstLine(errb.String()))
	}
	var files []string
	for _, f := range strings.Split(out.String(), "\x00") {
		if f != "" {
			files = append(files, f)
		}
	}
	sort.Slice(files, func(i, j int) bool { return pathLess(files[i], files[j]) })
	return files, nil
}

func (e *env) grepRg(ctx context.Context, q grepQuery) ([]fileHits, error) {
	args := append([]string{"rg", "--json"}, e.rgArgs(ctx, q.base)...)
	if q.ignore {
		args = append(args, "--ignore-case")
	}
	if q.literal {
		args = append(args, "--fixed-strings")
	}
	if q.context > 0 {
		args = append(args, "--context", fmt.Sprint(q.context))
	}
	args = append(args, "--regexp", q.pattern)
	if q.base != "." {
		args = append(args, "--", q.base)
	}
	var out, errb bytes.Buffer
	x, err := e.ex.Exec(ctx, args, executor.RunOptions{Output: &out, Stderr: &errb})
	if err != nil {
		return nil, err
	}
	byPath := map[string]*fileHits{}
	var order []*fileHits
	dec := json.NewDecoder(&out)
	for {
		var m rgMessage
		if err := dec.Decode(&m); err != nil {
			break
		}
		if m.Type != "match" && m.Type != "context" {
			continue
		}
		p := m.Data.Path.String()
		if !q.keep(p) {
			continue
		}
		fh := byPath[p]
		if fh == nil {
			fh = &fileHits{path: p}
			byPath[p] = fh
			order = append(order, fh)
		}
		text := strings.TrimSuffix(strings.TrimSuffix(m.Data.Lines.String(), "\n"), "\r")
		fh.lines = append(fh.lines, hit{line: m.Data.LineNumber, text: strings.ToValidUTF8(text, "\uFFFD"), match: m.Type == "match"})
	}
	if x.Code == 2 && len(order) == 0 && errb.Len() > 0 && !noFiles(errb.String()) {
		return nil, fmt.Errorf("rg: %s", firstLine(errb.String()))
	}
	res := make([]fileHits, len(order))
	for i, fh := range order {
		sort.Slice(fh.lines, func(a, b int) bool { return fh.lines[a].line < fh.lines[b].line })
		res[i] = *fh
	}
	sort.Slice(res, func(i, j int) bool { return pathLess(res[i].path, res[j].path) })
	return res, nil
}

// rgMessage is one line of rg --json output.
type rgMessage struct {
	Type string `json:"type"`
	Data struct {
		Path       rgData `json:"path"`
		Lines      rgData `json:"lines"`
		LineNumber int    `json:"line_number"`
	} `json:"data"`
}

// rgData is text, or bytes in base64 when not valid UTF-8.
type rgData struct {
	Text  *string `json:"text"`
	Bytes *string `json:"bytes"`
}

func (d rgData) String() string {
	if d.Text != nil {
		return *d.Text
	}
	if d.Bytes != nil {
		b, _ := base64.StdEncoding.DecodeString(*d.Bytes)
		return string(b)
	}
	return ""
}

// noFiles reports whether rg's error only says that every file was
// ignored, which is an empty result here.
func noFiles(stderr string) bool {
	return strings.HasPrefix(strings.TrimSpace(stderr), "No files were searched")
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	return s
}
