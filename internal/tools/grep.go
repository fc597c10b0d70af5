package tools

import (
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"path"
	"regexp"
	"strings"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/bonsai-run/bonsai/internal/executor"
	"github.com/bonsai-run/bonsai/internal/tool"
)

//go:embed grep.md
var grepDesc string

const grepSchema = `{"type":"object","properties":{
"pattern":{"type":"string"},
"path":{"type":"string","description":"File or directory (default .)"},
"glob":{"type":"string","description":"File filter, e.g. *.go or src/**/*.ts"},
"ignore_case":{"type":"boolean"},
"literal":{"type":"boolean","description":"Pattern is plain text"},
"context":{"type":"integer","minimum":0,"description":"Lines around each match"},
"limit":{"type":"integer","minimum":1,"description":"Max matches (default 100)"}},
"required":["pattern"],"additionalProperties":false}`

const grepLimit = 100

// GrepDetails describes a grep result for the UI.
type GrepDetails struct {
	Matches      int  `json:"matches"`
	Files        int  `json:"files"`
	LimitReached bool `json:"limitReached,omitempty"`
	Truncated    bool `json:"truncated,omitempty"`
	LinesCut     bool `json:"linesCut,omitempty"`
	// Skipped counts the files the search passed over for their size (only
	// without ripgrep, whose search streams).
	Skipped int `json:"skipped,omitempty"`
}

type grepTool struct {
	spec
	e *env
}

func newGrep(e *env) *grepTool {
	return &grepTool{spec: newSpec("grep", strings.TrimSpace(grepDesc), grepSchema), e: e}
}

type grepArgs struct {
	Pattern    string `json:"pattern"`
	Path       string `json:"path"`
	Glob       string `json:"glob"`
	IgnoreCase bool   `json:"ignore_case"`
	Literal    bool   `json:"literal"`
	Context    int    `json:"context"`
	Limit      int    `json:"limit"`
}

// Run implements tool.Tool.
func (t *grepTool) Run(ctx context.Context, raw json.RawMessage, _ func(tool.Result)) (tool.Result, error) {
	var a grepArgs
	if r := t.decode(raw, &a); r != nil {
		return *r, nil
	}
	return t.grep(ctx, a)
}

func (t *grepTool) grep(ctx context.Context, a grepArgs) (tool.Result, error) {
	ex := t.e.ex
	if a.Path == "" {
		a.Path = "."
	}
	if a.Limit == 0 {
		a.Limit = grepLimit
	}
	expr := a.Pattern
	if a.Literal {
		expr = regexp.QuoteMeta(expr)
	}
	if a.IgnoreCase {
		expr = "(?i)" + expr
	}
	if _, err := regexp.Compile(expr); err != nil {
		return errorResult("Invalid regular expression: %v", strings.TrimPrefix(err.Error(), "error parsing regexp: ")), nil
	}
	re := regexp.MustCompile("(?m)" + expr)
	if a.Glob != "" && !doublestar.ValidatePattern(a.Glob) {
		return errorResult("Invalid glob: %s", a.Glob), nil
	}
	base, err := ex.Rel(a.Path)
	if err != nil {
		return fsError(ex, a.Path, "Path", err), nil
	}
	st, err := ex.Stat(ctx, base)
	if err != nil {
		return fsError(ex, a.Path, "Path", err), nil
	}
	if !st.Dir && !st.Mode.IsRegular() {
		// rg would open a FIFO and wait for a writer.
		return fsError(ex, a.Path, "Path", executor.ErrNotRegular), nil
	}
	q := grepQuery{
		re: re, pattern: a.Pattern, base: base, isFile: !st.Dir, ignore: a.IgnoreCase,
		literal: a.Literal, context: a.Context, limit: a.Limit, size: st.Size,
		keep: func(p string) bool { return !st.Dir || globMatch(a.Glob, base, p) },
	}
	found, err := t.e.grep(ctx, q)
	if err != nil {
		return errorResult("Search failed: %v", err), nil
	}
	return formatGrep(found, a.Limit, a.Context), nil
}

// formatGrep renders hits in order, stopping at limit matches or 50 KB,
// and names the files the search skipped for their size.
func formatGrep(found grepResult, limit, ctxLines int) tool.Result {
	files := found.files
	var b strings.Builder
	d := GrepDetails{Skipped: len(found.skipped)}
	stop := false
	for _, f := range files {
		prev, lastMatch := -1, -1
		started := false
		for _, h := range f.lines {
			if h.match && d.Matches == limit {
				d.LimitReached, stop = true, true
				break
			}
			if !h.match && d.Matches == limit && h.line > lastMatch+ctxLines {
				break
			}
			sep := ":"
			if !h.match {
				sep = "-"
			}
			text, cut := cutLine(h.text)
			line := fmt.Sprintf("%s%s%d%s %s", f.path, sep, h.line, sep, text)
			extra := ""
			if ctxLines > 0 && (b.Len() > 0 && (!started || h.line != prev+1)) {
				extra = "--\n"
			}
			if b.Len()+len(extra)+len(line)+1 > maxBytes {
				d.Truncated, stop = true, true
				break
			}
			if b.Len() > 0 {
				b.WriteByte('\n')
			}
			b.WriteString(strings.TrimSuffix(extra, "\n"))
			if extra != "" {
				b.WriteByte('\n')
			}
			b.WriteString(line)
			d.LinesCut = d.LinesCut || cut
			if h.match {
				d.Matches++
				lastMatch = h.line
			}
			if !started {
				d.Files++
				started = true
			}
			prev = h.line
		}
		if stop {
			break
		}
	}
	var notes []string
	if n := len(found.skipped); n > 0 {
		names := found.skipped
		if n > 5 {
			names = names[:5]
		}
		more := ""
		if n > 5 {
			more = fmt.Sprintf(" and %d more", n-5)
		}
		notes = append(notes, fmt.Sprintf("[Skipped %d file(s) larger than %s without searching them: %s%s. Search them with bash (grep or rg).]",
			n, sizeText(found.over), strings.Join(names, ", "), more))
	}
	if d.Matches == 0 {
		if len(notes) > 0 {
			return textResult("No matches found\n\n"+strings.Join(notes, "\n"), d)
		}
		return textResult("No matches found", d)
	}
	if d.LimitReached {
		notes = append(notes, fmt.Sprintf("[Showing the first %d matches. Use limit=%d for more, or narrow the pattern or path.]", limit, limit*2))
	}
	if d.Truncated {
		notes = append(notes, "[Output truncated at 50 KB. Narrow the pattern or path, or use glob.]")
	}
	if d.LinesCut {
		notes = append(notes, fmt.Sprintf("[Lines longer than %d characters were cut. Use read to see them in full.]", maxLineChars))
	}
	if len(notes) > 0 {
		b.WriteString("\n\n" + strings.Join(notes, "\n"))
	}
	return textResult(b.String(), d)
}

// globMatch reports whether the root-relative path p, found under base,
// matches glob: a glob without "/" matches the file name, one with "/"
// the path relative to base. An empty glob matches everything.
func globMatch(glob, base, p string) bool {
	if glob == "" {
		return true
	}
	if !strings.Contains(glob, "/") {
		ok, _ := doublestar.Match(glob, path.Base(p))
		return ok
	}
	rel := p
	if base != "." {
		rel = strings.TrimPrefix(p, base+"/")
	}
	ok, _ := doublestar.Match(glob, rel)
	return ok
}

// sizeText writes a size limit for people: "64 MB", or bytes below 1 MB.
func sizeText(n int64) string {
	if n >= 1<<20 {
		return fmt.Sprintf("%d MB", n>>20)
	}
	return fmt.Sprintf("%d bytes", n)
}
