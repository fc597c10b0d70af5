package cli

import (
	"context"
	"log/slog"
	"os"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/engine"
	"github.com/bonsai-run/bonsai/internal/heartbeat"
	"github.com/bonsai-run/bonsai/internal/heartbeat/agentrunner"
	"github.com/bonsai-run/bonsai/internal/llm"
	"github.com/bonsai-run/bonsai/internal/tool"
	"github.com/bonsai-run/bonsai/internal/workspace"
)

// engineRunners is the heartbeat's runner: Bonsai's own agent, or the
// project's engine CLI (docs/engines.md), found on the runtime's PATH.
func engineRunners(a *app, bonsai *agentrunner.Runner, open func(string) (llm.Model, llm.Info, error),
	extra func(context.Context, heartbeat.Job) ([]tool.Tool, func()), log *slog.Logger) (*engine.Dispatch, error) {
	price := func(id string) llm.Price {
		_, info, err := open(id)
		if err != nil {
			return llm.Price{}
		}
		return info.Price
	}
	// The same thinking level as Bonsai's own agent would use.
	thinking := func(job heartbeat.Job) llm.ThinkingLevel {
		_, info, err := open(job.Model)
		if err != nil {
			return llm.ThinkingOff
		}
		return bonsai.ThinkingLevel(job, info)
	}
	// The ticket's pictures are shown to a model whose catalog entry
	// takes images, as Bonsai's own agent shows them.
	images := func(id string) bool {
		_, info, err := open(id)
		return err == nil && info.Images
	}
	d := &engine.Dispatch{Default: bonsai, Engines: map[board.Engine]heartbeat.AgentRunner{}}
	for name, e := range engineCLIs {
		r, err := engine.New(engine.Options{Engine: e, DataDir: a.dir.Path(), Home: userHome(), Locate: engineLocate, Getenv: a.getenv, Price: price, Logger: log, Now: a.now,
			ExtraTools: extra, Thinking: thinking, Images: images})
		if err != nil {
			return nil, err
		}
		d.Engines[name] = r
	}
	return d, nil
}

// withEngineState is the heartbeat's workspace provider: removing a done
// ticket's worktree removes its engine state too (docs/engines.md,
// State), which lives in the data directory, not in the worktree.
type withEngineState struct {
	*workspace.Provider
	data string
}

// Remove removes the worktree, then the engine state. os.RemoveAll
// unlinks a link the CLI left there; it never follows one.
func (w withEngineState) Remove(ctx context.Context, slug string, n int) error {
	if err := w.Provider.Remove(ctx, slug, n); err != nil {
		return err
	}
	return os.RemoveAll(engine.StateRoot(w.data, slug, n))
}
