package postgres

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// Health is what Check finds of a Postgres board.
type Health struct {
	// Version is the schema's version, 0 when it has no board yet;
	// Supported the newest this binary knows (SchemaVersion).
	Version, Supported int
	// Tables counts the tables of the schema; more than 0 with a Version
	// of 0 is somebody else's schema (ErrNotBonsai).
	Tables int
}

// Check connects to the database at dbURL and reads its schema version
// without creating or migrating anything: what `bonsai doctor` looks at.
// Its errors name the server, never the password.
func Check(ctx context.Context, dbURL string) (Health, error) {
	h := Health{Supported: SchemaVersion()}
	where := Redact(dbURL)
	cfg, err := pgx.ParseConfig(dbURL)
	if err != nil {
		return h, fmt.Errorf("database %s: not a valid Postgres URL: %w", where, unwrapParse(err))
	}
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		return h, fmt.Errorf("database %s: cannot connect: %w", where, err)
	}
	defer conn.Close(context.WithoutCancel(ctx))
	schema, err := currentSchema(ctx, conn, where)
	if err != nil {
		return h, err
	}
	if err := conn.QueryRow(ctx, `SELECT count(*) FROM pg_tables WHERE schemaname = $1`, schema).Scan(&h.Tables); err != nil {
		return h, fmt.Errorf("database %s: %w", where, err)
	}
	err = conn.QueryRow(ctx, `SELECT version FROM `+pgx.Identifier{schema, "bonsai_schema"}.Sanitize()).Scan(&h.Version)
	var pe *pgconn.PgError
	if errors.As(err, &pe) && pe.Code == "42P01" { // no bonsai_schema: no board yet, or not Bonsai's
		return h, nil
	}
	if err != nil {
		return h, fmt.Errorf("database %s: %w", where, err)
	}
	return h, nil
}
