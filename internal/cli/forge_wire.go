package cli

import (
	"context"
	"fmt"
	"log/slog"
	"strings"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/config"
	"github.com/bonsai-run/bonsai/internal/forge"
	"github.com/bonsai-run/bonsai/internal/forgesync"
	"github.com/bonsai-run/bonsai/internal/land"
	"github.com/bonsai-run/bonsai/internal/store"
)

// Issue 14 (forge): the pr mode's forge side, for the heartbeat (open and
// follow pull requests) and for every Lander (merge on approval).
func init() {
	landPullRequests = func(a *app) land.PullRequests {
		st, err := a.openStore(context.Background())
		if err != nil {
			return nil
		}
		cfg, err := a.config()
		if err != nil {
			return nil
		}
		return newForges(a, st, cfg, secrets(context.Background(), a, st).String, nil)
	}
}

// newForges returns the forge side of the pr mode: config.json's
// forge.hosts, the tokens through the process's environment reader (so
// stored ones too), the redactor of its secrets.
func newForges(a *app, st store.Store, cfg config.Config, redact func(string) string, log *slog.Logger) *forgesync.Forges {
	hosts, ticketURL := forgeHosts(cfg.Forge)
	limits, merges := "", ""
	if d, err := a.dataDir(); err == nil {
		limits, merges = d.Path("forge-limits.json"), d.Path("forge-merges")
	}
	return forgesync.New(forgesync.Options{Board: st, Hosts: hosts, Getenv: a.getenv, TicketURL: ticketURL,
		Redact: redact, Logger: log, Now: a.now, LimitsFile: limits, MergesDir: merges})
}

// forgeHosts are config.json's forge.hosts of a known kind, and the link
// to a ticket's page under forge.bonsaiURL (nil when unset).
func forgeHosts(f config.Forge) (map[string]forge.Host, func(board.Ref) string) {
	hosts := map[string]forge.Host{}
	for h, fh := range f.Hosts {
		if k, ok := forge.ParseKind(fh.Kind); ok {
			hosts[h] = forge.Host{Kind: k, API: fh.API}
		}
	}
	var ticketURL func(board.Ref) string
	if base := strings.TrimSuffix(f.BonsaiURL, "/"); base != "" {
		ticketURL = func(r board.Ref) string { return fmt.Sprintf("%s/p/%s/%d", base, r.Project, r.Number) }
	}
	return hosts, ticketURL
}
