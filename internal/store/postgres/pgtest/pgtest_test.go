package pgtest_test

import (
	"os"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/bonsai-run/bonsai/internal/store/postgres/pgtest"
)

func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }

// TestURL checks that each test gets its own schema on a live server: a
// table made through one URL is not seen through the other.
func TestURL(t *testing.T) {
	a, b := pgtest.URL(t), pgtest.URL(t)
	ca, err := pgx.Connect(t.Context(), a)
	if err != nil {
		t.Fatal(err)
	}
	defer ca.Close(t.Context())
	if _, err := ca.Exec(t.Context(), "CREATE TABLE x (n int)"); err != nil {
		t.Fatal(err)
	}
	cb, err := pgx.Connect(t.Context(), b)
	if err != nil {
		t.Fatal(err)
	}
	defer cb.Close(t.Context())
	var n int
	if err := cb.QueryRow(t.Context(), "SELECT count(*) FROM pg_tables WHERE tablename = 'x' AND schemaname = current_schema()").Scan(&n); err != nil {
		t.Fatal(err)
	}
	if n != 0 {
		t.Errorf("schema of b sees a's table")
	}
	var v string
	if err := ca.QueryRow(t.Context(), "SHOW server_version").Scan(&v); err != nil || v == "" {
		t.Errorf("server_version = %q, %v", v, err)
	}
}
