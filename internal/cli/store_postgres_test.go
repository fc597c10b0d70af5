package cli_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bonsai-run/bonsai/internal/cli"
	"github.com/bonsai-run/bonsai/internal/store"
	"github.com/bonsai-run/bonsai/internal/store/postgres"
	"github.com/bonsai-run/bonsai/internal/store/postgres/pgtest"
)

// TestStore_Postgres: with BONSAI_DATABASE_URL set, or store.url in
// config.json, every command works on the Postgres board and bonsai.db is
// never made; a server that is not there is a clear error.
func TestStore_Postgres(t *testing.T) {
	u := pgtest.OwnURL(t)
	data := t.TempDir()
	t.Setenv("BONSAI_DATA_DIR", data)
	t.Setenv("HOME", t.TempDir())
	t.Setenv("BONSAI_KEYRING", "file")
	run := func(args ...string) (int, string, string) {
		t.Helper()
		var out, errOut strings.Builder
		code := cli.Run(context.Background(), args, strings.NewReader(""), &out, &errOut)
		return code, out.String(), errOut.String()
	}
	must := func(args ...string) string {
		t.Helper()
		code, out, errOut := run(args...)
		if code != 0 {
			t.Fatalf("bonsai %s: exit %d: %s", strings.Join(args, " "), code, errOut)
		}
		return out
	}

	t.Setenv("BONSAI_DATABASE_URL", u)
	must("project", "add", "demo", "--repo", "https://example.com/demo.git")
	must("ticket", "add", "demo", "Port the parser")
	if out := must("status"); !strings.Contains(out, "demo") {
		t.Errorf("status on Postgres does not list demo:\n%s", out)
	}
	if _, err := os.Stat(filepath.Join(data, "bonsai.db")); err == nil {
		t.Errorf("bonsai.db was made although the board is on Postgres")
	}
	db, err := postgres.Open(t.Context(), u)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if n, err := db.CountTickets(t.Context(), store.TicketFilter{ProjectSlug: "demo"}); err != nil || n != 1 {
		t.Errorf("tickets on Postgres = %d, %v; want 1", n, err)
	}

	// The same board through config.json's store.url.
	t.Setenv("BONSAI_DATABASE_URL", "")
	if code, _, errOut := run("config", "set", "store.url", "postgres://bonsai:s3cret@localhost/bonsai"); code == 0 ||
		!strings.Contains(errOut, "password") {
		t.Errorf("config set store.url with a password: exit %d, %s", code, errOut)
	}
	must("config", "set", "store.url", u)
	if out := must("ticket", "list", "demo"); !strings.Contains(out, "Port the parser") {
		t.Errorf("ticket list through store.url:\n%s", out)
	}

	// A server that is not there.
	t.Setenv("BONSAI_DATABASE_URL", "postgres://bonsai:s3cret@127.0.0.1:1/bonsai?connect_timeout=5")
	code, _, errOut := run("status")
	if code == 0 || !strings.Contains(errOut, "cannot connect") || strings.Contains(errOut, "s3cret") {
		t.Errorf("status with an unreachable server: exit %d, %s", code, errOut)
	}
}
