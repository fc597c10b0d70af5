package cli

import (
	"context"
	"log/slog"
	"sync"

	"github.com/bonsai-run/bonsai/internal/config"
	"github.com/bonsai-run/bonsai/internal/store"
	"github.com/bonsai-run/bonsai/internal/trackersync"
	"github.com/bonsai-run/bonsai/internal/web"
)

// hookSecrets is the credentials store that seals and opens the hooks'
// secrets for bonsai serve, or nil when the data directory has none.
func hookSecrets(a *app) web.HookSecrets {
	ks, err := a.keys().Store()
	if err != nil {
		return nil
	}
	return ks
}

// hookSync returns what a sync hook calls: the project's tracker synced
// now by this process, as a beat syncs it (the syncer built once, with
// config.json's forge hosts and the process's redaction of its secrets).
func hookSync(a *app, d config.Dir, s store.Store, log *slog.Logger) func(ctx context.Context, project string) (string, error) {
	var once sync.Once
	var syncer *trackersync.Syncer
	return func(ctx context.Context, project string) (string, error) {
		once.Do(func() {
			cfg, err := config.Load(d.ConfigFile())
			if err != nil {
				cfg = config.Default()
			}
			syncer = newTrackers(a, s, cfg, secrets(ctx, a, s).String, log)
		})
		return syncer.SyncNow(ctx, project)
	}
}
