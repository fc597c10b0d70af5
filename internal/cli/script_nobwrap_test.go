package cli_test

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/rogpeppe/go-internal/testscript"
)

// cmdNoBwrap makes later commands run with a PATH holding every program
// of the current PATH but bwrap (bonsai, git, bash... linked into
// $WORK/nobwrap), so scripts can show what happens on a machine without
// bubblewrap: nobwrap.
func cmdNoBwrap(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 0 {
		ts.Fatalf("usage: nobwrap")
	}
	dir := ts.MkAbs("nobwrap")
	ts.Check(os.MkdirAll(dir, 0o755))
	for _, d := range filepath.SplitList(ts.Getenv("PATH")) {
		ents, err := os.ReadDir(d)
		if err != nil {
			continue
		}
		for _, e := range ents {
			name := e.Name()
			if name == "bwrap" || strings.HasPrefix(name, ".") {
				continue
			}
			link := filepath.Join(dir, name)
			if _, err := os.Lstat(link); err == nil {
				continue // an earlier PATH entry wins
			}
			ts.Check(os.Symlink(filepath.Join(d, name), link))
		}
	}
	ts.Setenv("PATH", dir)
}
