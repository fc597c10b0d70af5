package doctor

import (
	"errors"
	"runtime"
	"strings"
	"testing"

	"github.com/bonsai-run/bonsai/internal/board"
)

func TestDatabase_Verdicts(t *testing.T) {
	t.Parallel()
	bad := errors.New("file is not a database")
	for _, tc := range []struct {
		name    string
		c       Check
		current bool
		want    Status
		detail  string
	}{
		{"missing", first(SQLite("/d/bonsai.db", Schema{}, bad, true, false)), false, Skip, "does not exist yet"},
		{"not a board", first(SQLite("/d/bonsai.db", Schema{}, bad, false, true)), false, Fail, "not a database"},
		{"damaged", first(SQLite("/d/bonsai.db", Schema{Version: 3, Supported: 3, Problems: []string{"page 4"}}, nil, false, false)), false, Fail, "found damage"},
		{"newer", first(SQLite("/d/bonsai.db", Schema{Version: 4, Supported: 3}, nil, false, false)), false, Fail, "newer than this bonsai knows"},
		{"older", first(SQLite("/d/bonsai.db", Schema{Version: 2, Supported: 3}, nil, false, false)), false, OK, "migrates to 3"},
		{"pg foreign", first(Postgres("postgres://h/db", Schema{Tables: 2}, nil)), false, Fail, "holds 2 tables but no Bonsai board"},
		{"pg empty", first(Postgres("postgres://h/db", Schema{}, nil)), false, Skip, "holds no board yet"},
	} {
		if tc.c.Status != tc.want || !strings.Contains(tc.c.Detail, tc.detail) {
			t.Errorf("%s: %s %q; want %s with %q", tc.name, tc.c.Status, tc.c.Detail, tc.want, tc.detail)
		}
	}
	if _, current := SQLite("/d/bonsai.db", Schema{Version: 3, Supported: 3}, nil, false, false); !current {
		t.Error("an intact current database is not current")
	}
	if _, current := Postgres("postgres://h/db", Schema{Version: 3, Supported: 3}, nil); !current {
		t.Error("a current Postgres board is not current")
	}
}

func first(c Check, _ bool) Check { return c }

func TestSandbox_FailsOnlyWhenAProjectNeedsIt(t *testing.T) {
	t.Parallel()
	gone := errors.New("bwrap: not found")
	on := board.Project{Slug: "on"}
	off := board.Project{Slug: "off"}
	off.Agent.Sandbox = board.SandboxOff
	if cs := Sandbox([]board.Project{on, off}, true, gone); cs[0].Status != Fail || len(cs) != 2 || cs[1].Name != "sandbox off" {
		t.Errorf("required and missing: %+v", cs)
	}
	if cs := Sandbox([]board.Project{off}, true, gone); cs[0].Status != Skip {
		t.Errorf("only off projects: %+v", cs)
	}
	if cs := Sandbox(nil, true, gone); cs[0].Status != Warn {
		t.Errorf("no project: %+v", cs)
	}
	if cs := Sandbox([]board.Project{on}, true, nil); cs[0].Status != OK || (runtime.GOOS == "linux" && !strings.Contains(cs[0].Detail, "bubblewrap")) {
		t.Errorf("available: %+v", cs)
	}
}
