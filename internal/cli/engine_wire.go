package cli

import (
	"log/slog"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/engine"
	"github.com/bonsai-run/bonsai/internal/heartbeat"
	"github.com/bonsai-run/bonsai/internal/llm"
)

// engineRunners is the heartbeat's runner: Bonsai's own agent, or the
// project's engine CLI (docs/engines.md), found on the runtime's PATH.
func engineRunners(a *app, bonsai heartbeat.AgentRunner, open func(string) (llm.Model, llm.Info, error), log *slog.Logger) (*engine.Dispatch, error) {
	price := func(id string) llm.Price {
		_, info, err := open(id)
		if err != nil {
			return llm.Price{}
		}
		return info.Price
	}
	loc := engine.NewLocator(nil)
	d := &engine.Dispatch{Default: bonsai, Engines: map[board.Engine]heartbeat.AgentRunner{}}
	for name, e := range map[board.Engine]engine.Engine{
		board.EngineClaudeCode: engine.Claude{},
		board.EngineOpenCode:   engine.OpenCode{},
		board.EngineCodex:      engine.Codex{},
	} {
		r, err := engine.New(engine.Options{Engine: e, Locate: loc.Locate, Getenv: a.getenv, Price: price, Logger: log, Now: a.now})
		if err != nil {
			return nil, err
		}
		d.Engines[name] = r
	}
	return d, nil
}
