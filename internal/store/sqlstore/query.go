package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/bonsai-run/bonsai/internal/board"
)

// collect reads every row of rows with scan, and closes rows. No rows is
// an empty slice, never nil, so lists print as [] in JSON.
func collect[T any](rows *sql.Rows, scan func(scanner) (T, error)) ([]T, error) {
	defer rows.Close()
	out := []T{}
	for rows.Next() {
		v, err := scan(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, rows.Err()
}

// list runs query on q and reads every row it returns with scan
// (collect).
func list[T any](ctx context.Context, q queryer, scan func(scanner) (T, error), query string, args ...any) ([]T, error) {
	rows, err := q.queryContext(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	return collect(rows, scan)
}

// each runs query on q and fn on every row it returns, for reads that
// fill in something other than a list; it stops at fn's first error.
func each(ctx context.Context, q queryer, fn func(scanner) error, query string, args ...any) error {
	rows, err := q.queryContext(ctx, query, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		if err := fn(rows); err != nil {
			return err
		}
	}
	return rows.Err()
}

// one reads the row query selects with scan. No row is the error missing
// returns: a classified one (ENOTFOUND, or a project's) saying what is
// not there.
func one[T any](ctx context.Context, q queryer, scan func(scanner) (T, error), missing func() error, query string, args ...any) (T, error) {
	v, err := scan(q.queryRowContext(ctx, query, args...))
	if errors.Is(err, sql.ErrNoRows) {
		err = missing()
	}
	return result(v, err)
}

// scanString reads a row of one text column.
func scanString(s scanner) (string, error) {
	var v string
	err := s.Scan(&v)
	return v, err
}

// result returns v, or T's zero value when err is not nil: the last line of
// a method whose transaction filled in v.
func result[T any](v T, err error) (T, error) {
	if err != nil {
		var zero T
		return zero, err
	}
	return v, nil
}

// wrap adds context to a runtime failure. Classified errors (not found,
// invalid, conflict, refused) pass through unchanged: their messages are
// written for the person reading them and already say what is wrong.
func wrap(err error, format string, args ...any) error {
	if board.ErrorCode(err) != board.EINTERNAL {
		return err
	}
	return fmt.Errorf(format+": %w", append(args, err)...)
}

// execOne runs a statement that must change a row; when it changes none,
// the answer is missing.
func (t *tx) execOne(missing error, query string, args ...any) error {
	res, err := t.exec(query, args...)
	if err != nil {
		return err
	}
	n, err := res.RowsAffected()
	if err == nil && n == 0 {
		err = missing
	}
	return err
}

// expect returns otherwise unless whether query (a SELECT of the rows in
// question) finds a row is want: a name already taken, a comment that is
// not the ticket's.
func (t *tx) expect(want bool, otherwise error, query string, args ...any) error {
	var found bool
	if err := t.queryRow(`SELECT EXISTS (`+query+`)`, args...).Scan(&found); err != nil {
		return err
	}
	if found != want {
		return otherwise
	}
	return nil
}

// textBytes returns the bytes of a TEXT or BLOB value as the driver gives
// it, for the column types that decode it; what names the column.
func textBytes(src any, what string) ([]byte, error) {
	switch v := src.(type) {
	case string:
		return []byte(v), nil
	case []byte:
		return v, nil
	}
	return nil, fmt.Errorf("%s column: unexpected %T", what, src)
}

// checkActor refuses an actor the board does not know.
func checkActor(actor board.Actor) error {
	if !actor.Valid() {
		return board.Errorf(board.EINVALID, "unknown actor %q", actor)
	}
	return nil
}
