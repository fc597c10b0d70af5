package tools

import (
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"strings"
	"time"

	"github.com/bonsai-run/bonsai/internal/executor"
	"github.com/bonsai-run/bonsai/internal/llm"
	"github.com/bonsai-run/bonsai/internal/tool"
)

//go:embed bash.md
var bashDesc string

const bashSchema = `{"type":"object","properties":{
"command":{"type":"string"},
"timeout":{"type":"number","exclusiveMinimum":0,"description":"Seconds"}},
"required":["command"],"additionalProperties":false}`

// bashTimeout applies when the call gives none.
const bashTimeout = 300 * time.Second

// tmpDir holds full outputs of truncated commands, ignored by git.
const tmpDir = ".bonsai-tmp"

// BashDetails describes a bash result for the UI.
type BashDetails struct {
	ExitCode       int    `json:"exitCode"`
	DurationMs     int64  `json:"durationMs"`
	TimedOut       bool   `json:"timedOut,omitempty"`
	Aborted        bool   `json:"aborted,omitempty"`
	Truncated      bool   `json:"truncated,omitempty"`
	TotalLines     int    `json:"totalLines"`
	TotalBytes     int64  `json:"totalBytes"`
	FullOutputPath string `json:"fullOutputPath,omitempty"`
	// Limit names the sandbox limits the command met (executor.Exit.Limit).
	Limit string `json:"limit,omitempty"`
}

type bashTool struct {
	spec
	e *env
}

func newBash(e *env) *bashTool {
	return &bashTool{spec: newSpec("bash", strings.TrimSpace(bashDesc), bashSchema), e: e}
}

type bashArgs struct {
	Command string  `json:"command"`
	Timeout float64 `json:"timeout"`
}

// Run implements tool.Tool.
func (t *bashTool) Run(ctx context.Context, raw json.RawMessage, update func(tool.Result)) (tool.Result, error) {
	var a bashArgs
	if r := t.decode(raw, &a); r != nil {
		return *r, nil
	}
	return t.run(ctx, a, update)
}

// pathHider is implemented by executors that can rewrite their root's host
// path in command output as relative paths (local.Executor).
type pathHider interface {
	HidePaths(s string) string
}

func (t *bashTool) run(ctx context.Context, a bashArgs, update func(tool.Result)) (tool.Result, error) {
	timeout := bashTimeout
	if a.Timeout > 0 {
		timeout = time.Duration(math.Min(a.Timeout, 86400) * float64(time.Second))
	}
	hide := func(s string) string { return s }
	if h, ok := t.e.ex.(pathHider); ok {
		hide = h.HidePaths
	}
	out := &output{}
	if update != nil {
		out.update = func(text string) { update(textResult(hide(text), nil)) }
	}
	start := t.e.opts.Now()
	x, err := t.e.ex.Shell(ctx, a.Command, executor.RunOptions{Output: out, Timeout: timeout, ReadOnly: executor.IsReadOnly(ctx)})
	if err != nil {
		return tool.Result{}, fmt.Errorf("bash: %w", err)
	}
	d := BashDetails{
		ExitCode: x.Code, DurationMs: t.e.opts.Now().Sub(start).Milliseconds(),
		TimedOut: x.TimedOut, Aborted: x.Canceled, TotalBytes: out.total, Limit: x.Limit,
	}
	v := out.visible()
	d.TotalLines, d.Truncated = v.total, v.truncated
	text := hide(v.text)
	if v.truncated {
		p, err := t.spill(context.WithoutCancel(ctx), hide(out.full()))
		if err != nil {
			return tool.Result{}, fmt.Errorf("bash: save output: %w", err)
		}
		d.FullOutputPath = p
		if v.partial {
			text += fmt.Sprintf("\n\n[Showing the last 50 KB of line %d. Full output: %s]", v.last, p)
		} else {
			text += fmt.Sprintf("\n\n[Showing lines %d-%d of %d. Full output: %s]", v.first, v.last, v.total, p)
		}
	}
	if text == "" {
		text = "(no output)"
	}
	switch {
	case x.TimedOut:
		return tool.Result{Content: []llm.Part{llm.Text(text + "\n\n" + fmt.Sprintf("Command timed out after %s seconds", secs(timeout)))}, IsError: true, Details: d}, nil
	case x.Canceled:
		return tool.Result{Content: []llm.Part{llm.Text(text + "\n\nCommand aborted")}, IsError: true, Details: d}, nil
	case x.Code != 0:
		return tool.Result{Content: []llm.Part{llm.Text(text + fmt.Sprintf("\n\nCommand exited with code %d", x.Code))}, IsError: true, Details: d}, nil
	}
	return textResult(text, d), nil
}

func secs(d time.Duration) string {
	return strings.TrimSuffix(strings.TrimRight(fmt.Sprintf("%.3f", d.Seconds()), "0"), ".")
}

// spill saves the full output under .bonsai-tmp/ and returns its
// workspace-relative path.
func (t *bashTool) spill(ctx context.Context, full string) (string, error) {
	dir, err := t.e.prepareTmp(ctx)
	if err != nil {
		return "", err
	}
	p := dir + "/bash-" + t.e.opts.NewID() + ".log"
	if err := t.e.createFile(ctx, p, []byte(full)); err != nil {
		return "", err
	}
	return p, nil
}

// fileCreator is implemented by executors that can create a new file
// without following symlinks on the way (local.Executor).
type fileCreator interface {
	CreateFile(ctx context.Context, path string, data []byte) error
}

// createFile creates a file the tools own in the workspace, never through
// a symlink when the executor can refuse them.
func (e *env) createFile(ctx context.Context, p string, data []byte) error {
	if c, ok := e.ex.(fileCreator); ok {
		return c.CreateFile(ctx, p, data)
	}
	if _, err := e.ex.Stat(ctx, p); err == nil {
		return &executor.PathError{Op: "create", Path: p, Err: fs.ErrExist}
	}
	return e.ex.WriteFile(ctx, p, data)
}

// prepareTmp picks the directory for full outputs and makes sure git
// ignores it: a .gitignore inside it covers every repository layout
// (worktrees included), and the entry in .git/info/exclude keeps the
// directory itself out of git status. The directory is .bonsai-tmp, made
// of real directories only; when the repository has something else there
// (a committed symlink or file), a fresh .bonsai-tmp-<id> beside it is
// used instead, so that the repository can neither redirect the output
// nor make it fail.
func (e *env) prepareTmp(ctx context.Context) (string, error) {
	e.tmpOnce.Lock()
	defer e.tmpOnce.Unlock()
	if e.tmpDir != "" {
		return e.tmpDir, nil
	}
	ex := e.ex
	dir := tmpDir
	err := e.createFile(ctx, dir+"/.gitignore", []byte("*\n"))
	if errors.Is(err, executor.ErrLink) {
		dir = tmpDir + "-" + e.opts.NewID()
		err = e.createFile(ctx, dir+"/.gitignore", []byte("*\n"))
	}
	if err != nil && !errors.Is(err, fs.ErrExist) {
		return "", err
	}
	if st, err := ex.Stat(ctx, ".git"); err == nil && st.Dir {
		const exclude = ".git/info/exclude"
		old, err := ex.ReadFile(ctx, exclude)
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return "", err
		}
		if !hasLine(string(old), "/"+dir+"/") {
			s := string(old)
			if s != "" && !strings.HasSuffix(s, "\n") {
				s += "\n"
			}
			if err := ex.WriteFile(ctx, exclude, []byte(s+"/"+dir+"/\n")); err != nil {
				return "", err
			}
		}
	}
	e.tmpDir = dir
	return dir, nil
}

func hasLine(s, line string) bool {
	for _, l := range strings.Split(s, "\n") {
		if strings.TrimSpace(l) == line {
			return true
		}
	}
	return false
}
