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
	u := pgtest.URL(t)
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
	if _, out, _ := run("doctor"); !strings.Contains(out, "is reachable; schema version") || strings.Contains(out, "bonsai.db") {
		t.Errorf("doctor on Postgres does not check the Postgres board:\n%s", out)
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

// TestStoreMigrate moves a board from bonsai.db to Postgres and back with
// `bonsai store migrate`, and refuses to overwrite a board.
func TestStoreMigrate(t *testing.T) {
	u := pgtest.URL(t)
	data := t.TempDir()
	t.Setenv("BONSAI_DATA_DIR", data)
	t.Setenv("HOME", t.TempDir())
	t.Setenv("BONSAI_KEYRING", "file")
	t.Setenv("BONSAI_DATABASE_URL", "")
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
	must("project", "add", "demo", "--repo", "https://example.com/demo.git")
	must("ticket", "add", "demo", "Port the parser")
	must("comment", "add", "demo#1", "a note")
	out := must("store", "migrate", "--to", u)
	if !strings.Contains(out, "tickets") || !strings.Contains(out, "both hold the same rows") {
		t.Errorf("store migrate --to postgres:\n%s", out)
	}
	if code, _, errOut := run("store", "migrate", "--to", u); code == 0 || !strings.Contains(errOut, "already holds a board") {
		t.Errorf("second migrate into the same database: exit %d: %s", code, errOut)
	}
	back := filepath.Join(t.TempDir(), "back.db")
	must("store", "migrate", "--from", u, "--to", back)
	if code, _, errOut := run("store", "migrate", "--from", u, "--to", back); code == 0 || !strings.Contains(errOut, "already exists") {
		t.Errorf("migrate onto an existing file: exit %d: %s", code, errOut)
	}
	t.Setenv("BONSAI_DATABASE_URL", u)
	if out := must("ticket", "show", "demo#1"); !strings.Contains(out, "a note") {
		t.Errorf("the ticket on Postgres:\n%s", out)
	}
}
