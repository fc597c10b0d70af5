package cli

import (
	"os"
	"time"

	"github.com/bonsai-run/bonsai/internal/config"
	"github.com/bonsai-run/bonsai/internal/heartbeat"
	"github.com/bonsai-run/bonsai/internal/llm/catalog"
	"github.com/bonsai-run/bonsai/internal/store/sqlite"
)

// What an idle beat (nothing to pick, nothing due) does not need is not
// done up front: bench/heartbeat holds it within 1.5× of `bonsai version`.

// beatCatalog returns the model catalog the beat's runs resolve models
// with. Without models settings in config.json it is the embedded
// catalog, parsed when a run first opens a model (an idle beat opens
// none); with them it is built at once, so a bad setting stops the beat
// before it starts.
func beatCatalog(cfg config.Config) (func() *catalog.Catalog, error) {
	if len(cfg.Models) == 0 {
		return catalog.Default, nil
	}
	cat, err := modelCatalog(cfg)
	if err != nil {
		return nil, err
	}
	return func() *catalog.Catalog { return cat }, nil
}

// idleStamp is the stamp of everything a beat of the whole board that
// found nothing to do depends on (heartbeat.Unchanged): the SQLite
// board's files, config.json and this binary. "" when a beat cannot
// tell: the board is on Postgres (machines share it, and leases expire
// with time), the beat is limited to a project or a ticket, a file
// cannot be read, or one changed within sqlite.StampSettle.
func (a *app) idleStamp(o *heartbeatOptions) string {
	if o.dryRun || o.project != "" || o.ticket != "" || a.getenv(envDatabaseURL) != "" {
		return ""
	}
	d, err := a.dataDir()
	if err != nil {
		return ""
	}
	board, ok := sqlite.Stamp(d.DB(), time.Now())
	if !ok {
		return ""
	}
	return heartbeat.IdleStamp(versionLine(), board, d.ConfigFile(), executable())
}

// executable is this program's file, or "" (which no stat finds).
func executable() string {
	p, err := os.Executable()
	if err != nil {
		return ""
	}
	return p
}

// unchangedBeat answers the beat from the state file when nothing has
// written to the board since a beat that found nothing to do
// (heartbeat.Unchanged): no database is opened, no log written.
func (a *app) unchangedBeat(stamp string) (heartbeat.Report, bool) {
	d, err := a.dataDir()
	if err != nil {
		return heartbeat.Report{}, false
	}
	return heartbeat.Unchanged(d.LockFile(), d.Path("heartbeat.json"), stamp, a.now)
}
