package cli_test

import "github.com/rogpeppe/go-internal/testscript"

// cmdPty needs a Unix pseudo-terminal; scripts using it say [!windows] skip.
func cmdPty(ts *testscript.TestScript, neg bool, args []string) {
	ts.Fatalf("pty: no pseudo-terminals on Windows; guard the script with [!windows]")
}
