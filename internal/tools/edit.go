package tools

import (
	"bytes"
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/bonsai-run/bonsai/internal/tool"
)

//go:embed edit.md
var editDesc string

const editSchema = `{"type":"object","properties":{
"path":{"type":"string","description":"File path"},
"old_string":{"type":"string"},
"new_string":{"type":"string"},
"replace_all":{"type":"boolean"}},
"required":["path","old_string","new_string"],"additionalProperties":false}`

// EditDetails describes an edit result for the UI.
type EditDetails struct {
	Path             string `json:"path"`
	Replacements     int    `json:"replacements"`
	FirstChangedLine int    `json:"firstChangedLine"`
	Forgiving        bool   `json:"forgiving,omitempty"`
	Diff             string `json:"diff"`
}

type editTool struct {
	spec
	e *env
}

func newEdit(e *env) *editTool {
	return &editTool{spec: newSpec("edit", strings.TrimSpace(editDesc), editSchema), e: e}
}

type editArgs struct {
	Path       string `json:"path"`
	OldString  string `json:"old_string"`
	NewString  string `json:"new_string"`
	ReplaceAll bool   `json:"replace_all"`
}

// Run implements tool.Tool.
func (t *editTool) Run(ctx context.Context, raw json.RawMessage, _ func(tool.Result)) (tool.Result, error) {
	var a editArgs
	if r := t.decode(raw, &a); r != nil {
		return *r, nil
	}
	return t.edit(ctx, a)
}

func (t *editTool) edit(ctx context.Context, a editArgs) (tool.Result, error) {
	ex := t.e.ex
	name := shown(ex, a.Path)
	if r := checkEditArgs(a); r != nil {
		return *r, nil
	}
	rel, err := ex.Rel(a.Path)
	if err != nil {
		return fsError(ex, a.Path, "File", err), nil
	}
	unlock := t.e.locks.lock(rel)
	defer unlock()
	st, err := ex.Stat(ctx, rel)
	if err != nil {
		return fsError(ex, a.Path, "File", err), nil
	}
	if st.Dir {
		return errorResult("%s is a directory.", name), nil
	}
	if st.Size > maxReadBytes {
		// The file is read, matched and diffed whole in memory.
		return errorResult("%s is %d MB, too large to edit. Use bash with sed.", name, st.Size>>20), nil
	}
	data, err := ex.ReadFile(ctx, rel)
	if err != nil {
		return fsError(ex, a.Path, "File", err), nil
	}
	if bytes.IndexByte(data, 0) >= 0 {
		return errorResult("%s is a binary file; edit changes text files only.", name), nil
	}
	if !utf8.Valid(data) {
		return errorResult("%s is not valid UTF-8; edit cannot change it safely. Use bash.", name), nil
	}
	out, res := applyEdit(name, string(data), a)
	if res.IsError {
		return res, nil
	}
	if err := ex.WriteFile(ctx, rel, []byte(out)); err != nil {
		return fsError(ex, a.Path, "File", err), nil
	}
	return res, nil
}

// applyEdit performs the replacement on the file content and returns the
// new content with the result to report. It does no I/O.
func applyEdit(name, content string, a editArgs) (string, tool.Result) {
	if r := checkEditArgs(a); r != nil {
		return "", *r
	}
	bom := strings.HasPrefix(content, "\ufeff")
	content = strings.TrimPrefix(content, "\ufeff")
	crlf := strings.Contains(content, "\r\n") && strings.Count(content, "\r\n") == strings.Count(content, "\n")
	old, repl := a.OldString, a.NewString
	if crlf {
		content = strings.ReplaceAll(content, "\r\n", "\n")
		old = strings.ReplaceAll(old, "\r\n", "\n")
		repl = strings.ReplaceAll(repl, "\r\n", "\n")
	}
	regions := findExact(content, old)
	forgiving := false
	if len(regions) == 0 {
		regions, forgiving = findForgiving(content, old), true
	}
	switch {
	case len(regions) == 0:
		return "", notFound(name, content, old)
	case len(regions) > 1 && !a.ReplaceAll:
		return "", errorResult("Found %d occurrences of old_string in %s. Add more surrounding lines to make it unique, or set replace_all to true.", len(regions), name)
	}
	var b strings.Builder
	b.Grow(len(content) + len(regions)*(len(repl)-len(old)+16))
	at := 0
	for _, r := range regions {
		b.WriteString(content[at:r.start])
		b.WriteString(repl)
		at = r.end
	}
	b.WriteString(content[at:])
	out := b.String()
	if out == content {
		return "", errorResult("No changes: the replacement leaves %s unchanged.", name)
	}
	diff, first := unifiedDiff(name, content, regions, repl)
	if crlf {
		out = strings.ReplaceAll(out, "\n", "\r\n")
	}
	if bom {
		out = "\ufeff" + out
	}
	noun := "replacement"
	if len(regions) > 1 {
		noun = "replacements"
	}
	text := fmt.Sprintf("Edited %s: %d %s.\n\n%s", name, len(regions), noun, diff)
	return out, textResult(text, EditDetails{Path: name, Replacements: len(regions), FirstChangedLine: first, Forgiving: forgiving, Diff: diff})
}

// checkEditArgs refuses edits that cannot change anything.
func checkEditArgs(a editArgs) *tool.Result {
	var r tool.Result
	switch {
	case a.OldString == "":
		r = errorResult("old_string is empty. Use write to create or replace a whole file.")
	case a.OldString == a.NewString:
		r = errorResult("old_string and new_string are identical; there is nothing to change.")
	default:
		return nil
	}
	return &r
}

func notFound(name, content, old string) tool.Result {
	at, lines := closest(content, old)
	if at == 0 {
		return errorResult("Could not find old_string in %s. Read the file and copy the text exactly, including whitespace.", name)
	}
	width := len(strconv.Itoa(at + len(lines) - 1))
	var b strings.Builder
	for i, l := range lines {
		l, _ = cutLine(strings.TrimSuffix(l, "\r"))
		if i > 0 {
			b.WriteByte('\n')
		}
		fmt.Fprintf(&b, "%*d\t%s", width, at+i, l)
	}
	return errorResult("Could not find old_string in %s. The closest match is at line %d:\n%s\n\nRead the file and copy the text exactly, including whitespace.", name, at, b.String())
}
