package cli

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/bonsai-run/bonsai/internal/cmd/cmdkit"
	"github.com/bonsai-run/bonsai/internal/config"
	"github.com/bonsai-run/bonsai/internal/notify/outbox"
	"github.com/bonsai-run/bonsai/internal/store"
	"github.com/bonsai-run/bonsai/internal/store/sqlite"
	"github.com/bonsai-run/bonsai/internal/termsafe"
)

// app is what every command shares: the streams, the environment, and the
// data directory and store, opened on first use.
type app struct {
	stdin          io.Reader
	stdout, stderr io.Writer
	// env reads the process environment; getenv reads it too, and falls
	// back to the stored credential for a key or token variable the
	// environment does not set (cmdkit.Creds).
	env    func(string) string
	getenv func(string) string
	creds  *cmdkit.Creds
	now    func() time.Time

	// started is set once a command's own code runs; an error before that
	// is a usage error.
	started bool
	// oneShot reports that the command runs for milliseconds and exits
	// (not up, serve, heartbeat or run).
	oneShot bool
	// loop reports that the command is `bonsai worker`: its beats record
	// their worker as a loop (board.WorkerLoop), not one beat.
	loop bool

	dir   config.Dir
	store store.Store

	// beatCommand, when set, is the program and environment Run now
	// starts beats with (tests: the bonsai binary on PATH and their own
	// environment); nil means this binary and this process's environment.
	beatCommand func() (exe string, env []string, err error)

	// shared is what the command families of internal/cmd get (kit).
	shared *cmdkit.App
}

func newApp(stdin io.Reader, stdout, stderr io.Writer, getenv func(string) string) *app {
	a := &app{stdin: stdin, stdout: stdout, stderr: stderr, env: getenv, now: time.Now}
	a.creds = &cmdkit.Creds{Env: getenv, Warn: stderr, Now: func() time.Time { return a.now() }, Dir: func() config.Dir { return a.dir }}
	a.getenv = a.creds.Lookup
	return a
}

// dataDir returns the data directory, creating its layout on first use:
// every command that needs the data directory runs `init` implicitly.
func (a *app) dataDir() (config.Dir, error) {
	if a.dir != "" {
		return a.dir, nil
	}
	d, err := config.DefaultDir(a.getenv)
	if err != nil {
		return "", err
	}
	if _, err := a.initDir(d); err != nil {
		return "", err
	}
	return d, nil
}

// initDir runs config.Init on d, prints its warnings and makes d the data
// directory of the command.
func (a *app) initDir(d config.Dir) (config.InitResult, error) {
	res, err := config.Init(d)
	for _, w := range res.Warnings {
		fmt.Fprintf(a.stderr, "bonsai: warning: %s\n", termsafe.Text(w))
	}
	if err != nil {
		return res, cmdkit.DataDirError(a.getenv, err)
	}
	a.dir = d
	return res, nil
}

// config loads and validates config.json, read again only when the file
// changed: one beat asks for it four times.
func (a *app) config() (config.Config, error) {
	d, err := a.dataDir()
	if err != nil {
		return config.Config{}, err
	}
	c, err := a.creds.LoadConfig(d.ConfigFile())
	if fix := cmdkit.ConfigFix(err); fix != "" {
		return c, fmt.Errorf("%w; %s", err, fix)
	}
	return c, err
}

// openStore opens the board database.
func (a *app) openStore(ctx context.Context) (store.Store, error) {
	if a.store != nil {
		return a.store, nil
	}
	d, err := a.dataDir()
	if err != nil {
		return nil, err
	}
	if u, err := a.storeURL(); err != nil || u != "" {
		if err != nil {
			return nil, err
		}
		db, err := openPostgres(ctx, u)
		if err != nil {
			return nil, err
		}
		a.store = a.sealed(db)
		return a.store, nil
	}
	var opts []sqlite.Option
	if a.oneShot {
		// A command that exits after a few queries reads faster through a
		// small page cache: a fresh process pays a page fault for every
		// new page buffer.
		opts = append(opts, sqlite.WithCachePages(sqlite.OneShotCachePages))
	}
	db, err := sqlite.Open(ctx, d.DB(), opts...)
	if err != nil {
		return nil, err // the store's errors name the database file
	}
	// Channel secrets are sealed in the database, whoever reads it.
	a.store = a.sealed(db)
	return a.store, nil
}

// close releases what the commands opened.
func (a *app) close() error {
	if a.store == nil {
		return nil
	}
	err := a.store.Close()
	a.store = nil
	return err
}

// closeAtExit is close for a process that exits next: a SQLite board
// that closing would leave as it is (sqlite.DB.Settled: nothing written
// since the last checkpoint) is left to the exit, which releases it
// sooner.
func (a *app) closeAtExit() error {
	if a.store != nil && settled(a.store) {
		a.store = nil
		return nil
	}
	return a.close()
}

// settled reports whether s is a SQLite board that closing would leave as
// it is (sqlite.DB.Settled): its WAL is empty, so nobody wrote to it since
// the last checkpoint.
func settled(s store.Store) bool {
	db, ok := outbox.Unwrap(s).(*sqlite.DB)
	return ok && db.Settled()
}

// author is the name recorded on a person's comments and moves.
func (a *app) author() string { return cmdkit.Author(a.getenv) }
