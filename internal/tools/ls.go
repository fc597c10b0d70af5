package tools

import (
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/bonsai-run/bonsai/internal/tool"
)

//go:embed ls.md
var lsDesc string

const lsSchema = `{"type":"object","properties":{
"path":{"type":"string","description":"Directory (default .)"},
"limit":{"type":"integer","minimum":1,"description":"Max entries (default 500)"}},"additionalProperties":false}`

const lsLimit = 500

// LsDetails describes an ls result for the UI.
type LsDetails struct {
	Path      string `json:"path"`
	Entries   int    `json:"entries"`
	Shown     int    `json:"shown"`
	Truncated bool   `json:"truncated,omitempty"`
}

type lsTool struct {
	spec
	e *env
}

func newLs(e *env) *lsTool {
	return &lsTool{spec: newSpec("ls", strings.TrimSpace(lsDesc), lsSchema), e: e}
}

type lsArgs struct {
	Path  string `json:"path"`
	Limit int    `json:"limit"`
}

// Run implements tool.Tool.
func (t *lsTool) Run(ctx context.Context, raw json.RawMessage, _ func(tool.Result)) (tool.Result, error) {
	var a lsArgs
	if r := t.decode(raw, &a); r != nil {
		return *r, nil
	}
	return t.ls(ctx, a)
}

func (t *lsTool) ls(ctx context.Context, a lsArgs) (tool.Result, error) {
	ex := t.e.ex
	if a.Path == "" {
		a.Path = "."
	}
	limit := a.Limit
	if limit == 0 {
		limit = lsLimit
	}
	ents, err := ex.List(ctx, a.Path)
	if err != nil {
		return fsError(ex, a.Path, "Path", err), nil
	}
	names := make([]string, len(ents))
	for i, e := range ents {
		names[i] = e.Name
		if e.Dir {
			names[i] += "/"
		}
	}
	sort.SliceStable(names, func(i, j int) bool {
		li, lj := strings.ToLower(names[i]), strings.ToLower(names[j])
		if li != lj {
			return li < lj
		}
		return names[i] < names[j]
	})
	d := LsDetails{Path: shown(ex, a.Path), Entries: len(names)}
	if len(names) == 0 {
		return textResult("(empty directory)", d), nil
	}
	var b strings.Builder
	shownN := 0
	for _, n := range names {
		if shownN == limit || b.Len()+len(n)+1 > maxBytes {
			break
		}
		if shownN > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(n)
		shownN++
	}
	d.Shown = shownN
	if shownN < len(names) {
		d.Truncated = true
		fmt.Fprintf(&b, "\n\n[Showing %d of %d entries. Use limit=%d to see all.]", shownN, len(names), len(names))
	}
	return textResult(b.String(), d), nil
}

func itoa(n int) string { return strconv.Itoa(n) }
