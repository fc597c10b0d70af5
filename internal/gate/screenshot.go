package gate

import (
	"context"
	"encoding/json"

	"github.com/bonsai-run/bonsai/internal/executor"
	"github.com/bonsai-run/bonsai/internal/tool"
)

// screenshotTool is the screenshot tool's name (internal/tools): its
// serve argument is a command, run in the background while the picture
// is taken.
const screenshotTool = "screenshot"

// screenshotGuard is the screenshot tool with its serve command judged as
// bash's command is, and its context marked read-only in a read-only
// run (the tool then runs where the workspace cannot be written and
// refuses a path to save the picture at).
type screenshotGuard struct {
	guarded
	c Config
}

// Run implements tool.Tool.
func (g *screenshotGuard) Run(ctx context.Context, args json.RawMessage, update func(tool.Result)) (tool.Result, error) {
	var a struct {
		Serve string `json:"serve"`
	}
	if err := json.Unmarshal(args, &a); err != nil {
		return tool.Errorf("invalid arguments for screenshot: %v", err), nil
	}
	if a.Serve != "" {
		cmd, _ := json.Marshal(map[string]string{"command": a.Serve})
		var r *tool.Result
		if ctx, r = g.c.command(ctx, cmd); r != nil {
			return *r, nil
		}
	}
	if g.c.readOnly() {
		ctx = executor.ReadOnlyContext(ctx)
	}
	return g.Tool.Run(ctx, args, update)
}
