// Package boardcopy copies a board from one store to another (`bonsai
// store migrate`): SQLite to Postgres, Postgres to SQLite, table by table
// through store.Copier, then checks that the target holds the same rows
// as the source, table by table, by count and checksum.
package boardcopy

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/bonsai-run/bonsai/internal/store"
)

// Sum is what a table holds, as Verify compares it.
type Sum struct {
	Table string
	Rows  int
	// SHA256 is the hex SHA-256 of the table's rows in a canonical form
	// (values by kind, JSON re-encoded), sorted: equal on two stores
	// exactly when they hold the same rows.
	SHA256 string
}

// Copy checks that the copy would lose nothing (CheckSchema), copies the
// board of src into dst, which must hold none, in one transaction of dst,
// and verifies the result. It returns the sums of the tables.
func Copy(ctx context.Context, src, dst store.Copier) ([]Sum, error) {
	if err := CheckSchema(ctx, src); err != nil {
		return nil, err
	}
	err := dst.WriteTables(ctx, func(put func(t store.Table, row []any) error) error {
		for _, t := range store.CopyTables {
			if err := src.ReadTable(ctx, t, func(row []any) error { return put(t, row) }); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return Verify(ctx, src, dst)
}

// CheckSchema refuses a source holding a table or column that neither
// store.CopyTables copies nor is derived: a copy would lose its data.
// (A newer Bonsai's schema, or a store this one was not updated for.)
func CheckSchema(ctx context.Context, src store.Copier) error {
	schema, err := src.Schema(ctx)
	if err != nil {
		return err
	}
	known := map[string][]string{}
	for _, t := range store.CopyTables {
		for _, c := range t.Columns {
			known[t.Name] = append(known[t.Name], c.Name)
		}
	}
	var lost []string
	for table, columns := range schema {
		if slices.Contains(store.DerivedTables, table) {
			continue
		}
		kc, ok := known[table]
		if !ok {
			lost = append(lost, table)
			continue
		}
		for _, c := range columns {
			if !slices.Contains(kc, c) && !slices.Contains(store.DerivedColumns, table+"."+c) {
				lost = append(lost, table+"."+c)
			}
		}
	}
	if len(lost) > 0 {
		slices.Sort(lost)
		return fmt.Errorf("the source holds %s, which this bonsai does not know how to copy; use the bonsai that wrote it", strings.Join(lost, ", "))
	}
	return nil
}

// Verify reads every copied table of a and b and reports a difference in
// rows or checksum as an error naming the table. It returns a's sums.
func Verify(ctx context.Context, a, b store.Copier) ([]Sum, error) {
	var sums []Sum
	for _, t := range store.CopyTables {
		sa, err := sum(ctx, a, t)
		if err != nil {
			return nil, err
		}
		sb, err := sum(ctx, b, t)
		if err != nil {
			return nil, err
		}
		if sa != sb {
			return nil, fmt.Errorf("%s differs after the copy: %d rows (sha256 %.12s) in the source, %d (%.12s) in the target",
				t.Name, sa.Rows, sa.SHA256, sb.Rows, sb.SHA256)
		}
		sums = append(sums, sa)
	}
	return sums, nil
}

// sum reads t from c and sums it.
func sum(ctx context.Context, c store.Copier, t store.Table) (Sum, error) {
	var rows []string
	var b strings.Builder
	err := c.ReadTable(ctx, t, func(row []any) error {
		b.Reset()
		for i, v := range row {
			if i > 0 {
				b.WriteByte(0x1f)
			}
			s, err := canonical(t.Columns[i], v)
			if err != nil {
				return fmt.Errorf("%s: %w", t.Name, err)
			}
			b.WriteString(s)
		}
		rows = append(rows, b.String())
		return nil
	})
	if err != nil {
		return Sum{}, err
	}
	slices.Sort(rows)
	h := sha256.New()
	for _, r := range rows {
		h.Write([]byte(r))
		h.Write([]byte{0x1e})
	}
	return Sum{Table: t.Name, Rows: len(rows), SHA256: hex.EncodeToString(h.Sum(nil))}, nil
}

// canonical writes v of column c the same way whichever store read it.
func canonical(c store.Column, v any) (string, error) {
	if v == nil {
		return "\x00", nil
	}
	switch x := v.(type) {
	case int64:
		return strconv.FormatInt(x, 10), nil
	case float64:
		return strconv.FormatFloat(x, 'g', -1, 64), nil
	case bool:
		return strconv.FormatBool(x), nil
	case []byte: // bytea, or a BLOB: the same as text holding the bytes
		return strconv.Quote(string(x)), nil
	case string:
		if c.Kind != store.JSON {
			return strconv.Quote(x), nil
		}
		// Postgres's jsonb rewrites JSON (spacing, key order): compare
		// what it means.
		d := json.NewDecoder(strings.NewReader(x))
		d.UseNumber()
		var j any
		if err := d.Decode(&j); err != nil {
			return "", fmt.Errorf("column %s: %w", c.Name, err)
		}
		var out bytes.Buffer
		e := json.NewEncoder(&out)
		e.SetEscapeHTML(false)
		if err := e.Encode(j); err != nil {
			return "", err
		}
		return out.String(), nil
	}
	return "", fmt.Errorf("column %s: unexpected %T", c.Name, v)
}
