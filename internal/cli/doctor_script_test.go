package cli_test

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/rogpeppe/go-internal/testscript"
)

// cmdCorrupt overwrites n bytes of a file from offset with 0xA5, as a
// failing disk or a torn copy would: corrupt <file> <offset> <n>.
func cmdCorrupt(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 3 {
		ts.Fatalf("usage: corrupt <file> <offset> <n>")
	}
	off, err := strconv.ParseInt(args[1], 10, 64)
	ts.Check(err)
	n, err := strconv.Atoi(args[2])
	ts.Check(err)
	f, err := os.OpenFile(ts.MkAbs(args[0]), os.O_WRONLY, 0)
	ts.Check(err)
	defer f.Close()
	b := make([]byte, n)
	for i := range b {
		b[i] = 0xA5
	}
	_, err = f.WriteAt(b, off)
	ts.Check(err)
}

// cmdPathWithout drops from PATH every directory holding one of the
// programs, as on a machine where they are not installed: pathwithout
// <program>...
func cmdPathWithout(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) == 0 {
		ts.Fatalf("usage: pathwithout <program>...")
	}
	var keep []string
	for _, dir := range filepath.SplitList(ts.Getenv("PATH")) {
		holds := false
		for _, name := range args {
			if _, err := os.Stat(filepath.Join(dir, name)); err == nil {
				holds = true
			}
		}
		if !holds {
			keep = append(keep, dir)
		}
	}
	ts.Setenv("PATH", strings.Join(keep, string(filepath.ListSeparator)))
}
