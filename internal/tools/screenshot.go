package tools

import (
	"context"
	_ "embed"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/bonsai-run/bonsai/internal/executor"
	"github.com/bonsai-run/bonsai/internal/llm"
	"github.com/bonsai-run/bonsai/internal/tool"
)

//go:embed screenshot.md
var screenshotDesc string

const screenshotSchema = `{"type":"object","properties":{
"url":{"type":"string","description":"http(s) URL on 127.0.0.1, localhost or [::1]"},
"file":{"type":"string","description":"HTML file in the workspace"},
"serve":{"type":"string","description":"command serving url, run in the background for this call"},
"width":{"type":"integer","minimum":200,"maximum":2560,"description":"viewport width, CSS pixels (default 1280)"},
"height":{"type":"integer","minimum":200,"maximum":2560,"description":"viewport height, CSS pixels (default 800)"},
"path":{"type":"string","description":"where to save the PNG in the workspace (default under .bonsai-tmp/)"},
"timeout":{"type":"number","exclusiveMinimum":0,"maximum":120,"description":"Seconds"}},
"additionalProperties":false}`

// The viewport's bounds and default, in CSS pixels at a scale of 1.
const (
	minViewport   = 200
	maxViewport   = 2560
	defaultWidth  = 1280
	defaultHeight = 800
)

// The call's time bounds: the whole of it, Chromium and the serve command
// included, is killed when it runs over.
const (
	shotTimeout    = 30 * time.Second
	maxShotTimeout = 120 * time.Second
)

// ScreenshotDetails describes a screenshot result for the UI.
type ScreenshotDetails struct {
	// Target is the URL or the workspace file pictured.
	Target string `json:"target"`
	// Path is where the PNG was saved, relative to the workspace.
	Path   string `json:"path"`
	Width  int    `json:"width"`
	Height int    `json:"height"`
	Bytes  int    `json:"bytes"`
	// LoadTimedOut reports that the page had not finished loading when
	// Chromium took the picture.
	LoadTimedOut bool  `json:"loadTimedOut,omitempty"`
	DurationMs   int64 `json:"durationMs"`
}

type screenshotTool struct {
	spec
	e        *env
	chromium string // the program run inside the executor
}

func newScreenshot(e *env, chromium string) *screenshotTool {
	return &screenshotTool{spec: newSpec("screenshot", strings.TrimSpace(screenshotDesc), screenshotSchema), e: e, chromium: chromium}
}

type screenshotArgs struct {
	URL     string  `json:"url"`
	File    string  `json:"file"`
	Serve   string  `json:"serve"`
	Width   int     `json:"width"`
	Height  int     `json:"height"`
	Path    string  `json:"path"`
	Timeout float64 `json:"timeout"`
}

// Run implements tool.Tool.
func (t *screenshotTool) Run(ctx context.Context, raw json.RawMessage, _ func(tool.Result)) (tool.Result, error) {
	var a screenshotArgs
	if r := t.decode(raw, &a); r != nil {
		return *r, nil
	}
	a.Width, a.Height = orDefault(a.Width, defaultWidth), orDefault(a.Height, defaultHeight)
	if a.Width < minViewport || a.Width > maxViewport || a.Height < minViewport || a.Height > maxViewport {
		return errorResult("A viewport of %d×%d is refused: width and height are %d to %d CSS pixels.", a.Width, a.Height, minViewport, maxViewport), nil
	}
	tg, problem := t.target(ctx, a)
	if problem != "" {
		return errorResult("%s", problem), nil
	}
	if a.Path != "" && executor.IsReadOnly(ctx) {
		return errorResult("This run must not write the worktree: leave out path, and the picture is kept under %s/, which git ignores.", tmpDir), nil
	}
	if a.Path != "" {
		if _, err := t.e.ex.Rel(a.Path); err != nil {
			return fsError(t.e.ex, a.Path, "File", err), nil
		}
		if !strings.HasSuffix(strings.ToLower(a.Path), ".png") {
			return errorResult("path %s must end in .png.", shown(t.e.ex, a.Path)), nil
		}
	}
	timeout := shotTimeout
	if a.Timeout > 0 {
		timeout = time.Duration(min(a.Timeout, maxShotTimeout.Seconds()) * float64(time.Second))
	}
	start := t.e.opts.Now()
	pic, res := t.take(ctx, tg, a, timeout)
	if res != nil {
		return *res, nil
	}
	saved, res := t.save(ctx, a.Path, pic.png)
	if res != nil {
		return *res, nil
	}
	d := ScreenshotDetails{Target: tg.shown, Path: saved, Width: pic.width, Height: pic.height, Bytes: len(pic.png),
		LoadTimedOut: pic.loadTimedOut, DurationMs: t.e.opts.Now().Sub(start).Milliseconds()}
	return shotResult(d, pic.png), nil
}

func orDefault(v, def int) int {
	if v == 0 {
		return def
	}
	return v
}

// shotResult is what the model reads: where the picture is, and the
// picture itself when it is within what a model may be sent (a model
// whose catalog entry takes no images gets llm.ImageOmitted instead).
func shotResult(d ScreenshotDetails, png []byte) tool.Result {
	var b strings.Builder
	fmt.Fprintf(&b, "Screenshot of %s at %d×%d, saved to %s (%s).", d.Target, d.Width, d.Height, d.Path, byteSize(len(png)))
	if d.LoadTimedOut {
		b.WriteString(" The page had not finished loading; the picture shows what it had drawn.")
	}
	fmt.Fprintf(&b, " To show it on the ticket, put %s in attach of ticket_comment or of a criterion in ticket_move.", d.Path)
	if len(png) > maxImageBytes {
		fmt.Fprintf(&b, " The picture is %s, over the %s a model is sent: take a smaller viewport to see it.", byteSize(len(png)), byteSize(maxImageBytes))
		return tool.Result{Content: []llm.Part{llm.Text(b.String())}, Details: d}
	}
	parts := []llm.Part{llm.Text(b.String()), llm.Image("image/png", base64.StdEncoding.EncodeToString(png))}
	return tool.Result{Content: parts, Details: d}
}

// byteSize writes a byte count for the model: bytes, KB or MB.
func byteSize(n int) string {
	switch {
	case n < 1<<10:
		return fmt.Sprintf("%d bytes", n)
	case n < 1<<20:
		return fmt.Sprintf("%.1f KB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%.1f MB", float64(n)/(1<<20))
}
