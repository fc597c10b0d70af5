package tools

import (
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"io/fs"
	"path"
	"strings"

	"github.com/bonsai-run/bonsai/internal/tool"
)

//go:embed write.md
var writeDesc string

const writeSchema = `{"type":"object","properties":{
"path":{"type":"string","description":"File path"},
"content":{"type":"string"}},
"required":["path","content"],"additionalProperties":false}`

// maxWriteBytes bounds the content of one write.
const maxWriteBytes = 10 << 20

// WriteDetails describes a write result for the UI.
type WriteDetails struct {
	Path    string `json:"path"`
	Created bool   `json:"created"`
	Bytes   int    `json:"bytes"`
}

type writeTool struct {
	spec
	e *env
}

func newWrite(e *env) *writeTool {
	return &writeTool{spec: newSpec("write", strings.TrimSpace(writeDesc), writeSchema), e: e}
}

type writeArgs struct {
	Path    string `json:"path"`
	Content string `json:"content"`
}

// Run implements tool.Tool.
func (t *writeTool) Run(ctx context.Context, raw json.RawMessage, _ func(tool.Result)) (tool.Result, error) {
	var a writeArgs
	if r := t.decode(raw, &a); r != nil {
		return *r, nil
	}
	return t.write(ctx, a)
}

func (t *writeTool) write(ctx context.Context, a writeArgs) (tool.Result, error) {
	ex := t.e.ex
	name := shown(ex, a.Path)
	if len(a.Content) > maxWriteBytes {
		return errorResult("Content is %.1f MB, over the 10 MB limit of one write. Write the file in parts or generate it with a script.", float64(len(a.Content))/(1<<20)), nil
	}
	rel, err := ex.Rel(a.Path)
	if err != nil {
		return fsError(ex, a.Path, "File", err), nil
	}
	unlock := t.e.locks.lock(rel)
	defer unlock()
	created := false
	st, err := ex.Stat(ctx, rel)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		created = true
	case err != nil:
		return fsError(ex, a.Path, "File", err), nil
	case st.Dir:
		return errorResult("%s is a directory.", name), nil
	}
	if err := ex.WriteFile(ctx, rel, []byte(a.Content)); err != nil {
		return fsError(ex, a.Path, "Directory", err), nil
	}
	verb := "Overwrote"
	if created {
		verb = "Created"
	}
	d := WriteDetails{Path: path.Clean(rel), Created: created, Bytes: len(a.Content)}
	return textResult(verb+" "+name+" ("+itoa(len(a.Content))+" bytes).", d), nil
}
