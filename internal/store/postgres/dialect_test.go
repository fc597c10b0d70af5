package postgres

import "testing"

// TestRebind checks the rewriting of sqlstore's queries: placeholders
// numbered in order, none inside a quoted string, and rowid as a word
// only.
func TestRebind(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ in, want string }{
		{`SELECT a FROM t WHERE b = ? AND c = ?`, `SELECT a FROM t WHERE b = $1 AND c = $2`},
		{`SELECT '?', "a?" FROM t WHERE b = ?`, `SELECT '?', "a?" FROM t WHERE b = $1`},
		{`SELECT 'it''s ?' WHERE x = ?`, `SELECT 'it''s ?' WHERE x = $1`},
		{`ORDER BY created_at, rowid DESC`, `ORDER BY created_at, seq DESC`},
		{`SELECT rowids, my_rowid, rowid2 FROM t`, `SELECT rowids, my_rowid, rowid2 FROM t`},
		{`SELECT 'rowid' FROM t ORDER BY rowid`, `SELECT 'rowid' FROM t ORDER BY seq`},
	} {
		if got := rebind(tc.in); got != tc.want {
			t.Errorf("rebind(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
