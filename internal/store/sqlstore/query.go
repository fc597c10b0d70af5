package sqlstore

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/bonsai-run/bonsai/internal/board"
)

// collect appends every row of rows, read with scan, to out (an empty
// slice, never nil, so lists print as [] in JSON), and closes rows.
func collect[T any](rows Rows, scan func(scanner) (T, error), out []T) ([]T, error) {
	defer rows.Close()
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
	return collect(rows, scan, []T{})
}

// ofTicket lists what of the ticket ref query selects, its one ? the
// ticket's ID: an unknown ticket is ENOTFOUND, not an empty list.
func ofTicket[T any](ctx context.Context, db *DB, ref board.Ref, scan func(scanner) (T, error), what, query string) ([]T, error) {
	t, err := getTicket(ctx, db, ref)
	if err != nil {
		return nil, err
	}
	out, err := list(ctx, db, scan, query, t.ID)
	return result(out, wrap(err, "list %s of %s", what, ref))
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

// absent turns no row into no error, for reads where none is an answer:
// what the caller filled in before stands.
func absent(err error) error {
	if errors.Is(err, sql.ErrNoRows) {
		return nil
	}
	return err
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

// jsonList stores a list of strings in a TEXT column as a JSON array; nil
// is stored as [] and read back as nil.
type jsonList struct{ p *[]string }

// Value implements driver.Valuer.
func (l jsonList) Value() (driver.Value, error) {
	if len(*l.p) == 0 {
		return "[]", nil
	}
	b, err := json.Marshal(*l.p)
	return string(b), err
}

// Scan implements sql.Scanner.
func (l jsonList) Scan(src any) error {
	b, err := textBytes(src, "list")
	if err != nil {
		return err
	}
	if string(b) == "[]" {
		*l.p = nil // most lists are empty: no decoder needed
		return nil
	}
	var out []string
	if err := json.Unmarshal(b, &out); err != nil {
		return fmt.Errorf("list column: %w", err)
	}
	if len(out) == 0 {
		out = nil
	}
	*l.p = out
	return nil
}

// jsonMap stores a map of strings in a TEXT column as a JSON object; nil
// is stored as {} and read back as an empty map.
type jsonMap struct{ p *map[string]string }

// Value implements driver.Valuer.
func (m jsonMap) Value() (driver.Value, error) {
	if len(*m.p) == 0 {
		return "{}", nil
	}
	b, err := json.Marshal(*m.p)
	return string(b), err
}

// Scan implements sql.Scanner.
func (m jsonMap) Scan(src any) error {
	b, err := textBytes(src, "map")
	if err != nil {
		return err
	}
	out := map[string]string{}
	if err := json.Unmarshal(b, &out); err != nil {
		return fmt.Errorf("map column: %w", err)
	}
	*m.p = out
	return nil
}

// settingsJSON stores a project's agent settings in a TEXT column as the
// JSON object of board.EncodeSettings, and reads them back checked by
// the settings table, keeping unknown keys.
type settingsJSON struct{ a *board.AgentSettings }

// Value implements driver.Valuer.
func (j settingsJSON) Value() (driver.Value, error) {
	b, err := board.EncodeSettings(*j.a)
	return string(b), err
}

// Scan implements sql.Scanner.
func (j settingsJSON) Scan(src any) error {
	b, err := textBytes(src, "settings")
	if err != nil {
		return err
	}
	a, err := board.DecodeSettings(b)
	*j.a = a
	return err
}

// ms scans a unix-millisecond column into a time; NULL leaves the zero
// time.
type ms struct{ t *time.Time }

// Scan implements sql.Scanner.
func (m ms) Scan(src any) error {
	switch v := src.(type) {
	case int64:
		*m.t = fromMillis(v)
	case nil:
		*m.t = time.Time{}
	default:
		return fmt.Errorf("time column: unexpected %T", src)
	}
	return nil
}

// msOrZero scans a unix-millisecond column that stores "none" as 0 or
// NULL: either leaves the zero time.
type msOrZero struct{ t *time.Time }

// Scan implements sql.Scanner.
func (m msOrZero) Scan(src any) error {
	if v, ok := src.(int64); ok && v == 0 {
		*m.t = time.Time{}
		return nil
	}
	return ms(m).Scan(src)
}

// msPtr scans a nullable unix-millisecond column into a time pointer,
// nil for NULL.
type msPtr struct{ p **time.Time }

// Scan implements sql.Scanner.
func (m msPtr) Scan(src any) error {
	if src == nil {
		*m.p = nil
		return nil
	}
	var t time.Time
	err := ms{&t}.Scan(src)
	*m.p = &t
	return err
}

// zeroOr0 stores t in unix milliseconds, the zero time as 0.
func zeroOr0(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.UnixMilli()
}

// zeroOrNull stores t in unix milliseconds, the zero time as NULL: a
// schedule's next fire of never again, a landing not landed.
func zeroOrNull(t time.Time) any {
	if t.IsZero() {
		return nil
	}
	return t.UnixMilli()
}
