package cli_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/bonsai-run/bonsai/internal/cli"
)

// freshBoardScripts are the testscripts that start without a board, as
// a new installation does: their first bonsai command creates
// data/bonsai.db and runs every migration. Every other script starts
// with data/bonsai.db a copy of a new, migrated board (seedBoard), the
// file that first command would have made: creating it was most of the
// CPU of a script's first command, paid again by every script.
var freshBoardScripts = map[string]string{
	"init":   "bonsai init says it created bonsai.db",
	"db":     "a damaged, empty or missing bonsai.db, and the new one made in its place",
	"doctor": "bonsai doctor before the data directory exists",
	// Boards on Postgres from the first command: no bonsai.db is made.
	"heartbeat_kill_postgres":   "board on Postgres",
	"heartbeat_postgres":        "board on Postgres; checks that no bonsai.db is made",
	"heartbeat_postgres_resume": "board on Postgres",
	"schedule_postgres":         "board on Postgres; checks that no bonsai.db is made",
	"worker":                    "board on Postgres",
}

// seedBoard gives the script of env its board, data/bonsai.db, unless it
// is one of freshBoardScripts. The data directory gets config.Init's
// mode; the rest of its layout is left to bonsai, as on a first run.
func seedBoard(env *testscript.Env) error {
	if _, fresh := freshBoardScripts[scriptName(env)]; fresh {
		return nil
	}
	return cli.SeedData(filepath.Join(env.WorkDir, "data")) // seed_export_test.go
}

// scriptName is the name of env's script: testscript runs each in a work
// directory named script-<name>.
func scriptName(env *testscript.Env) string {
	return strings.TrimPrefix(filepath.Base(env.WorkDir), "script-")
}

// TestFreshBoardScriptsExist keeps freshBoardScripts true: a renamed or
// removed script would otherwise leave a name that opts nothing out.
func TestFreshBoardScriptsExist(t *testing.T) {
	t.Parallel()
	for name := range freshBoardScripts {
		if _, err := os.Stat(filepath.Join("testdata", "script", name+".txtar")); err != nil {
			t.Errorf("freshBoardScripts names %s, which is not a script: %v", name, err)
		}
	}
}
