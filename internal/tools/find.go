package tools

import (
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"path"
	"sort"
	"strings"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/bonsai-run/bonsai/internal/tool"
)

//go:embed find.md
var findDesc string

const findSchema = `{"type":"object","properties":{
"pattern":{"type":"string","description":"Glob"},
"path":{"type":"string","description":"Directory (default .)"},
"limit":{"type":"integer","minimum":1,"description":"Max results (default 1000)"}},
"required":["pattern"],"additionalProperties":false}`

const findLimit = 1000

// FindDetails describes a find result for the UI.
type FindDetails struct {
	Results   int  `json:"results"`
	Shown     int  `json:"shown"`
	Truncated bool `json:"truncated,omitempty"`
}

type findTool struct {
	spec
	e *env
}

func newFind(e *env) *findTool {
	return &findTool{spec: newSpec("find", strings.TrimSpace(findDesc), findSchema), e: e}
}

type findArgs struct {
	Pattern string `json:"pattern"`
	Path    string `json:"path"`
	Limit   int    `json:"limit"`
}

// Run implements tool.Tool.
func (t *findTool) Run(ctx context.Context, raw json.RawMessage, _ func(tool.Result)) (tool.Result, error) {
	var a findArgs
	if r := t.decode(raw, &a); r != nil {
		return *r, nil
	}
	return t.find(ctx, a)
}

func (t *findTool) find(ctx context.Context, a findArgs) (tool.Result, error) {
	ex := t.e.ex
	if a.Path == "" {
		a.Path = "."
	}
	if a.Limit == 0 {
		a.Limit = findLimit
	}
	if !doublestar.ValidatePattern(a.Pattern) {
		return errorResult("Invalid glob: %s", a.Pattern), nil
	}
	base, err := ex.Rel(a.Path)
	if err != nil {
		return fsError(ex, a.Path, "Path", err), nil
	}
	st, err := ex.Stat(ctx, base)
	if err != nil {
		return fsError(ex, a.Path, "Path", err), nil
	}
	if !st.Dir {
		return errorResult("Not a directory: %s", shown(ex, a.Path)), nil
	}
	files, err := t.e.listFiles(ctx, base)
	if err != nil {
		return errorResult("Search failed: %v", err), nil
	}
	return formatFind(matchEntries(files, base, a.Pattern), a.Pattern, a.Limit), nil
}

// matchEntries returns the files and directories (those holding a listed
// file, shown with a trailing "/") under base that match pattern, sorted.
func matchEntries(files []string, base, pattern string) []string {
	var out []string
	seen := map[string]bool{}
	for _, f := range files {
		if globMatch(pattern, base, f) {
			out = append(out, f)
		}
		for d := path.Dir(f); d != base && d != "." && !seen[d]; d = path.Dir(d) {
			seen[d] = true
			if globMatch(pattern, base, d) {
				out = append(out, d+"/")
			}
		}
	}
	sort.Slice(out, func(i, j int) bool { return pathLess(out[i], out[j]) })
	return out
}

func formatFind(ents []string, pattern string, limit int) tool.Result {
	d := FindDetails{Results: len(ents)}
	if len(ents) == 0 {
		return textResult("No files found matching "+pattern, d)
	}
	var b strings.Builder
	for _, e := range ents {
		if d.Shown == limit || b.Len()+len(e)+1 > maxBytes {
			break
		}
		if d.Shown > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(e)
		d.Shown++
	}
	if d.Shown < len(ents) {
		d.Truncated = true
		if d.Shown == limit {
			fmt.Fprintf(&b, "\n\n[Showing the first %d of %d results. Use limit=%d to see all, or narrow the pattern.]", d.Shown, len(ents), len(ents))
		} else {
			fmt.Fprintf(&b, "\n\n[Showing the first %d of %d results (50 KB limit). Narrow the pattern or path.]", d.Shown, len(ents))
		}
	}
	return textResult(b.String(), d)
}
