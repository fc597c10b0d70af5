package cli

import (
	"fmt"
	"log/slog"
	"strings"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/config"
	"github.com/bonsai-run/bonsai/internal/forge"
	"github.com/bonsai-run/bonsai/internal/store"
	"github.com/bonsai-run/bonsai/internal/trackersync"
)

// newTrackers returns the projects' tracker sync (issue 29): config.json's
// forge.hosts for the forges' issues, the tokens through the process's
// environment reader (so stored ones too), the redactor of its secrets.
func newTrackers(a *app, st store.Store, cfg config.Config, redact func(string) string, log *slog.Logger) *trackersync.Syncer {
	hosts := map[string]forge.Host{}
	for h, fh := range cfg.Forge.Hosts {
		if k, ok := forge.ParseKind(fh.Kind); ok {
			hosts[h] = forge.Host{Kind: k, API: fh.API}
		}
	}
	var ticketURL func(board.Ref) string
	if base := strings.TrimSuffix(cfg.Forge.BonsaiURL, "/"); base != "" {
		ticketURL = func(r board.Ref) string { return fmt.Sprintf("%s/p/%s/%d", base, r.Project, r.Number) }
	}
	return trackersync.New(trackersync.Options{Board: st, Hosts: hosts, Getenv: a.getenv, Redact: redact, TicketURL: ticketURL, Logger: log})
}
