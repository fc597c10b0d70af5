package sqlstore

import (
	"context"
	"fmt"
	"strings"

	"github.com/bonsai-run/bonsai/internal/store"
)

// Schema lists the database's tables and their columns, generated ones
// included (Dialect.SchemaQuery), for store.Copier.
func (db *DB) Schema(ctx context.Context) (map[string][]string, error) {
	out := map[string][]string{}
	err := each(ctx, db, func(s scanner) error {
		var t, c string
		err := s.Scan(&t, &c)
		out[t] = append(out[t], c)
		return err
	}, db.d.SchemaQuery)
	return result(out, wrap(err, "read the schema"))
}

// ReadTable reads every row of t, for store.Copier: an Ordered table in
// rowid order, the order its rows were written.
func (db *DB) ReadTable(ctx context.Context, t store.Table, each func(row []any) error) error {
	q := `SELECT ` + strings.Join(t.Names(), ", ") + ` FROM ` + t.Name
	if t.Ordered {
		q += ` ORDER BY rowid`
	}
	rows, err := db.queryContext(ctx, q)
	if err != nil {
		return fmt.Errorf("read %s: %w", t.Name, err)
	}
	defer rows.Close()
	vals := make([]any, len(t.Columns))
	ptrs := make([]any, len(vals))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	for rows.Next() {
		if err := rows.Scan(ptrs...); err != nil {
			return fmt.Errorf("read %s: %w", t.Name, err)
		}
		for i, c := range t.Columns {
			if vals[i], err = copyValue(c, vals[i]); err != nil {
				return fmt.Errorf("read %s: %w", t.Name, err)
			}
		}
		if err := each(vals); err != nil {
			return err
		}
	}
	return rows.Err()
}

// copyValue converts a value as the driver scanned it to its kind's type:
// SQLite has no booleans, JSON may come as bytes, and bytes stay bytes.
func copyValue(c store.Column, v any) (any, error) {
	if v == nil {
		return nil, nil
	}
	switch c.Kind {
	case store.Bool:
		switch b := v.(type) {
		case bool:
			return b, nil
		case int64:
			return b != 0, nil
		}
	case store.Int:
		if n, ok := v.(int64); ok {
			return n, nil
		}
	case store.Real:
		switch n := v.(type) {
		case float64:
			return n, nil
		case int64:
			return float64(n), nil
		}
	case store.Bytes: // SQLite's STRICT BLOB column takes no text
		switch b := v.(type) {
		case []byte:
			return b, nil
		case string:
			return []byte(b), nil
		}
	case store.Text, store.JSON:
		switch s := v.(type) {
		case string:
			return s, nil
		case []byte:
			return string(s), nil
		}
	}
	return nil, fmt.Errorf("column %s: unexpected %T", c.Name, v)
}
