package cli

import (
	"log/slog"

	"github.com/bonsai-run/bonsai/internal/config"
	"github.com/bonsai-run/bonsai/internal/store"
	"github.com/bonsai-run/bonsai/internal/trackersync"
)

// newTrackers returns the projects' tracker sync (issue 29): config.json's
// forge.hosts for the forges' issues, the tokens through the process's
// environment reader (so stored ones too), the redactor of its secrets.
func newTrackers(a *app, st store.Store, cfg config.Config, redact func(string) string, log *slog.Logger) *trackersync.Syncer {
	hosts, ticketURL := forgeHosts(cfg.Forge)
	return trackersync.New(trackersync.Options{Board: st, Hosts: hosts, Getenv: a.getenv, Redact: redact, TicketURL: ticketURL, Logger: log})
}
