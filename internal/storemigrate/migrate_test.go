package storemigrate

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestCheck_RefusesWhatWouldLoseABoard(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	existing := filepath.Join(dir, "bonsai.db")
	if err := os.WriteFile(existing, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	loc := Locations{IsURL: func(s string) bool { return strings.HasPrefix(s, "postgres://") }, Redact: func(s string) string { return s }}
	for _, tc := range []struct {
		m    Migration
		want string
	}{
		{Migration{From: existing, To: filepath.Join(dir, ".", "bonsai.db")}, "the same board"},
		{Migration{From: "postgres://h/a", To: "postgres://h/a"}, "the same board"},
		{Migration{From: "postgres://h/a", To: existing}, "already exists"},
		{Migration{From: "postgres://h/a", To: filepath.Join(dir, "new.db"), Sessions: dir}, "--sessions is for a SQLite board"},
		{Migration{From: existing, To: "postgres://h/b", Sessions: existing}, "is not a directory"},
		{Migration{From: existing, To: "postgres://h/b", Sessions: dir}, ""},
	} {
		tc.m.Locations = loc
		err := tc.m.Check()
		if tc.want == "" && err != nil || tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)) {
			t.Errorf("%s -> %s (sessions %q): %v; want %q", tc.m.From, tc.m.To, tc.m.Sessions, err, tc.want)
		}
	}
}
