package cli_test

import "github.com/rogpeppe/go-internal/testscript"

// cmdPty needs a Unix pseudo-terminal; scripts using it skip on Windows.
func cmdPty(ts *testscript.TestScript, neg bool, args []string) {
	ts.Skip("pty: no pseudo-terminals on Windows")
}
