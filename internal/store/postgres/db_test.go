package postgres_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/store/postgres"
	"github.com/bonsai-run/bonsai/internal/store/postgres/pgtest"
)

// execSQL runs statements on the schema of u.
func execSQL(t *testing.T, u, sql string, args ...any) {
	t.Helper()
	conn, err := pgx.Connect(t.Context(), u)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	if _, err := conn.Exec(t.Context(), sql, args...); err != nil {
		t.Fatal(err)
	}
}

// TestOpen_MigratesOnce has eight stores open one new schema at once: the
// migration runs once (the advisory lock), every store works.
func TestOpen_MigratesOnce(t *testing.T) {
	u := pgtest.URL(t)
	var wg sync.WaitGroup
	errs := make([]error, 8)
	for i := range errs {
		wg.Go(func() {
			db, err := postgres.Open(t.Context(), u)
			if err == nil {
				_, err = db.CreateProject(t.Context(), board.Project{Slug: "p" + string(rune('a'+i)), Name: "P",
					Repo: "https://example.com/r.git", DefaultBranch: "main"})
				db.Close()
			}
			errs[i] = err
		})
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Errorf("store %d: %v", i, err)
		}
	}
	db, err := postgres.Open(t.Context(), u)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ps, err := db.Projects(t.Context(), storeAll)
	if err != nil || len(ps) != 8 {
		t.Errorf("Projects = %d, %v; want 8", len(ps), err)
	}
}

// TestOpen_NewerSchema: a schema written by a newer Bonsai is refused,
// untouched.
func TestOpen_NewerSchema(t *testing.T) {
	u := pgtest.URL(t)
	db, err := postgres.Open(t.Context(), u)
	if err != nil {
		t.Fatal(err)
	}
	db.Close()
	newer := postgres.SchemaVersion() + 1
	execSQL(t, u, `UPDATE bonsai_schema SET version = $1`, newer)
	_, err = postgres.Open(t.Context(), u)
	var se *postgres.SchemaError
	if !errors.As(err, &se) || se.Version != newer || se.Supported != postgres.SchemaVersion() ||
		!strings.Contains(err.Error(), "upgrade bonsai") {
		t.Fatalf("Open = %v, want a *SchemaError for version %d", err, newer)
	}
}

// TestOpen_NotBonsai: a schema with someone else's tables is refused and
// left as it was.
func TestOpen_NotBonsai(t *testing.T) {
	u := pgtest.URL(t)
	execSQL(t, u, `CREATE TABLE invoices (id int)`)
	_, err := postgres.Open(t.Context(), u)
	if !errors.Is(err, postgres.ErrNotBonsai) || !strings.Contains(err.Error(), "not a bonsai database") {
		t.Fatalf("Open = %v, want ErrNotBonsai", err)
	}
	conn, err := pgx.Connect(t.Context(), u)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	var n int
	conn.QueryRow(t.Context(), `SELECT count(*) FROM pg_tables WHERE schemaname = current_schema()`).Scan(&n)
	if n != 1 {
		t.Errorf("the schema has %d tables after the refusal, want its 1", n)
	}
}

// TestOpen_Unreachable: a server that is not there, and a URL that is not
// one, are clear errors that never show the password.
func TestOpen_Unreachable(t *testing.T) {
	ctx := t.Context()
	_, err := postgres.Open(ctx, "postgres://bonsai:s3cret@127.0.0.1:1/bonsai?connect_timeout=5")
	if err == nil || !strings.Contains(err.Error(), "cannot connect") || strings.Contains(err.Error(), "s3cret") ||
		!strings.Contains(err.Error(), "BONSAI_DATABASE_URL") {
		t.Errorf("Open(unreachable) = %v", err)
	}
	_, err = postgres.Open(ctx, "postgres://bonsai:s3cret@host:notaport/db")
	if err == nil || !strings.Contains(err.Error(), "not a valid Postgres URL") || strings.Contains(err.Error(), "s3cret") {
		t.Errorf("Open(bad URL) = %v", err)
	}
	_, err = postgres.Open(ctx, pgtest.WithSearchPath(pgtest.Server(t), "no_such_schema"))
	if err == nil || !strings.Contains(err.Error(), "search_path") {
		t.Errorf("Open(missing schema) = %v", err)
	}
}

// TestRedact never shows a password.
func TestRedact(t *testing.T) {
	for in, want := range map[string]string{
		"postgres://u:pw@h:5432/d":             "postgres://u:xxxxx@h:5432/d",
		"postgres://u@h/d?password=pw&x=1":     "postgres://u@h/d?password=xxxxx&x=1",
		"postgresql://h/d?sslmode=verify-full": "postgresql://h/d?sslmode=verify-full",
	} {
		if got := postgres.Redact(in); got != want {
			t.Errorf("Redact(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestCheck reads a schema's version without changing it.
func TestCheck(t *testing.T) {
	u := pgtest.URL(t)
	h, err := postgres.Check(t.Context(), u)
	if err != nil || h.Version != 0 || h.Tables != 0 || h.Supported != postgres.SchemaVersion() {
		t.Fatalf("Check(empty) = %+v, %v", h, err)
	}
	if h, _ := postgres.Check(t.Context(), u); h.Tables != 0 {
		t.Errorf("Check made tables: %+v", h)
	}
	db, err := postgres.Open(t.Context(), u)
	if err != nil {
		t.Fatal(err)
	}
	db.Close()
	if h, err := postgres.Check(t.Context(), u); err != nil || h.Version != postgres.SchemaVersion() || h.Tables == 0 {
		t.Errorf("Check(board) = %+v, %v", h, err)
	}
	if _, err := postgres.Check(t.Context(), "postgres://u:s3cret@127.0.0.1:1/x?connect_timeout=5"); err == nil ||
		!strings.Contains(err.Error(), "cannot connect") || strings.Contains(err.Error(), "s3cret") {
		t.Errorf("Check(unreachable) = %v", err)
	}
}
