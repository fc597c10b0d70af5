package sqlite

import (
	"database/sql"
	"testing"
)

// TestWithCachePages checks that the bound reaches every connection of the
// pool, not only the first, and that without it SQLite keeps its default.
func TestWithCachePages(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		opts []Option
		want int
	}{
		{"default", nil, -2000}, // SQLite's: 2,000 KiB
		{"one-shot", []Option{WithCachePages(OneShotCachePages)}, OneShotCachePages},
	} {
		t.Run(tc.name, func(t *testing.T) {
			db := OpenCopyForTest(t, tc.opts...)
			defer db.Close()
			// Hold one connection so that the second query needs another.
			first, err := db.sql.Conn(t.Context())
			if err != nil {
				t.Fatal(err)
			}
			defer first.Close()
			second, err := db.sql.Conn(t.Context())
			if err != nil {
				t.Fatal(err)
			}
			defer second.Close()
			for i, c := range []*sql.Conn{first, second} {
				var n int
				if err := c.QueryRowContext(t.Context(), "PRAGMA cache_size").Scan(&n); err != nil {
					t.Fatal(err)
				}
				if n != tc.want {
					t.Errorf("connection %d: cache_size %d, want %d", i+1, n, tc.want)
				}
			}
		})
	}
}
