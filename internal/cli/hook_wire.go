package cli

import (
	"context"
	"log/slog"
	"sync"

	"github.com/bonsai-run/bonsai/internal/store"
	"github.com/bonsai-run/bonsai/internal/trackersync"
	"github.com/bonsai-run/bonsai/internal/web"
)

// hookSecrets is the credentials store that seals and opens the hooks'
// secrets for bonsai serve; nil when there is none.
func hookSecrets(a *app) web.HookSecrets {
	if ks, err := a.keys().Store(); err == nil {
		return ks
	}
	return nil
}

// hookSync is a sync hook's action: the project's tracker synced now by
// this process, as a beat would, with a syncer made on first use.
func hookSync(a *app, s store.Store, log *slog.Logger) func(context.Context, string) (string, error) {
	var once sync.Once
	var syncer *trackersync.Syncer
	return func(ctx context.Context, project string) (string, error) {
		once.Do(func() {
			cfg, _ := a.config() // a broken config.json: no self-hosted forges
			syncer = newTrackers(a, s, cfg, secrets(ctx, a, s).String, log)
		})
		return syncer.SyncNow(ctx, project)
	}
}
