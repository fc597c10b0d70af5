package cli_test

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/store/postgres"
	"github.com/bonsai-run/bonsai/internal/store/postgres/pgtest"
)

// condPostgres is the [postgres] condition of the scripts: whether a
// Postgres can be had. With CI=true its absence is an error, so the
// scripts that need it fail rather than skip (.ci/run installs it).
func condPostgres() (bool, error) {
	err := pgtest.Available()
	if err != nil && os.Getenv("CI") == "true" {
		return false, fmt.Errorf("no PostgreSQL, and CI=true: %v", err)
	}
	return err == nil, nil
}

// cmdPostgres puts the script's board on Postgres (issue 18): it creates
// a schema of the script's own on the server the package's tests share
// (pgtest.Shared: a cluster started on first use and stopped after the
// tests, or BONSAI_TEST_DATABASE_URL's server), sets BONSAI_DATABASE_URL
// to it, and drops it when the script ends: postgres.
func cmdPostgres(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 0 {
		ts.Fatalf("usage: postgres")
	}
	server, err := pgtest.Shared()
	ts.Check(err)
	u, drop, err := pgtest.NewSchema(server)
	ts.Check(err)
	ts.Defer(func() { drop() })
	ts.Setenv("BONSAI_DATABASE_URL", u)
}

// cmdLease takes a ticket's lease on the script's Postgres board for a
// worker of another machine, for an hour, as its beat would: lease <ref>
// <worker>.
func cmdLease(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: lease <project>#<n> <worker>")
	}
	ref, err := board.ParseRef(args[0])
	ts.Check(err)
	ctx := context.Background()
	db, err := postgres.Open(ctx, ts.Getenv("BONSAI_DATABASE_URL"))
	ts.Check(err)
	defer db.Close()
	_, err = db.AcquireLease(ctx, ref, args[1], time.Hour, 0)
	ts.Check(err)
}
