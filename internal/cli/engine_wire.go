package cli

import (
	"log/slog"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/engine"
	"github.com/bonsai-run/bonsai/internal/heartbeat"
)

// engineRunners is the heartbeat's runner: Bonsai's own agent, or the
// project's engine CLI (docs/engines.md), found on the runtime's PATH.
func engineRunners(a *app, bonsai heartbeat.AgentRunner, log *slog.Logger) (*engine.Dispatch, error) {
	loc := engine.NewLocator(nil)
	d := &engine.Dispatch{Default: bonsai, Engines: map[board.Engine]heartbeat.AgentRunner{}}
	for name, e := range map[board.Engine]engine.Engine{
		board.EngineClaudeCode: engine.Claude{},
		board.EngineOpenCode:   engine.OpenCode{},
		board.EngineCodex:      engine.Codex{},
	} {
		r, err := engine.New(engine.Options{Engine: e, Locate: loc.Locate, Getenv: a.getenv, Logger: log, Now: a.now})
		if err != nil {
			return nil, err
		}
		d.Engines[name] = r
	}
	return d, nil
}
