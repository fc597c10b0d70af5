package cli_test

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/rogpeppe/go-internal/testscript"
)

// cmdPrivate checks that nobody but the owner may read, write or enter each
// path, nor anything below it: private <path>... Git checkouts (directories
// holding .git, below a path) are not checked: git makes them, and the
// private directory above them keeps others out.
func cmdPrivate(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) == 0 {
		ts.Fatalf("usage: private <path>...")
	}
	var open []string
	for _, arg := range args {
		root := ts.MkAbs(arg)
		err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			fi, err := d.Info()
			if err != nil {
				return err
			}
			if d.IsDir() && p != root {
				if _, err := os.Lstat(filepath.Join(p, ".git")); err == nil {
					return filepath.SkipDir
				}
			}
			if fi.Mode().Type()&fs.ModeSymlink == 0 && fi.Mode().Perm()&0o077 != 0 {
				rel, _ := filepath.Rel(ts.Getenv("WORK"), p)
				open = append(open, rel+" "+fi.Mode().String())
			}
			return nil
		})
		ts.Check(err)
	}
	if len(open) > 0 {
		ts.Fatalf("open to other users:\n%s", strings.Join(open, "\n"))
	}
}
