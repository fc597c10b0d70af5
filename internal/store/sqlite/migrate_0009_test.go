package sqlite

import (
	"context"
	"database/sql"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bonsai-run/bonsai/internal/board"
)

// TestMigrate_PermissionModeKept upgrades a version 8 database, whose
// permission_mode CHECK knew only ” and 'plan', and checks that the modes
// are kept, the new modes are accepted and the new settings default to
// the sandbox required behind the proxy.
func TestMigrate_PermissionModeKept(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "bonsai.db")
	v8, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	ms, err := migrations()
	if err != nil {
		t.Fatal(err)
	}
	var script []string
	for _, m := range ms[:8] {
		script = append(script, m.sql)
	}
	if _, err := v8.Exec(strings.Join(script, ";\n") + `; PRAGMA user_version = 8;
		INSERT INTO projects (id, slug, name, repo, default_branch, created_at, updated_at, permission_mode) VALUES
			('p1', 'plans', 'P', '/r', 'main', 0, 0, 'plan'),
			('p2', 'auto', 'A', '/r', 'main', 0, 0, '');`); err != nil {
		t.Fatal(err)
	}
	if _, err := v8.Exec(`UPDATE projects SET permission_mode = 'ask'`); err == nil {
		t.Fatal("version 8 accepted mode 'ask'; the test does not start from the old CHECK")
	}
	v8.Close()

	db, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for slug, want := range map[string]board.PermissionMode{"plans": board.ModePlan, "auto": board.ModeAuto} {
		p, err := db.Project(ctx, slug)
		if err != nil || p.Agent.PermissionMode != want {
			t.Errorf("%s after migrating: mode %q, %v; want %q", slug, p.Agent.PermissionMode, err, want)
		}
		if p.Agent.Sandbox != board.SandboxRequired || p.Agent.Network != board.NetworkProxy || p.Agent.Allow != nil || p.Agent.AllowHosts != nil {
			t.Errorf("%s after migrating: %+v; want the defaults", slug, p.Agent)
		}
	}
	mode := board.ModeAsk
	if p, err := db.UpdateProject(ctx, "auto", board.ProjectPatch{PermissionMode: &mode}); err != nil || p.Agent.PermissionMode != board.ModeAsk {
		t.Errorf("setting ask after migrating: %+v, %v", p.Agent, err)
	}
	// The settings moved to one JSON object (0022), checked by the
	// settings table when read: a stored mode it does not know is refused.
	if _, err := db.sql.Exec(`UPDATE projects SET settings = '{"permissionMode":"yolo"}'`); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Project(ctx, "auto"); board.ErrorCode(err) != board.EINVALID {
		t.Errorf("a stored mode yolo read as %v, want EINVALID", err)
	}
}
