package cli

import (
	"context"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/bonsai-run/bonsai/internal/executor/sandbox"
)

// MainForTest is Main for testscripts: when $BONSAI_TEST_NOW holds an RFC
// 3339 time, the command's clock stands there, so a script moves time by
// setting it. Only the test binary has it.
func MainForTest() {
	if len(os.Args) > 1 && os.Args[1] == sandbox.BridgeArg {
		os.Exit(sandbox.BridgeMain(os.Args[2:]))
	}
	var now func() time.Time
	if v := os.Getenv("BONSAI_TEST_NOW"); v != "" {
		t, err := time.Parse(time.RFC3339, v)
		if err != nil {
			os.Stderr.WriteString("BONSAI_TEST_NOW: " + err.Error() + "\n")
			os.Exit(2)
		}
		now = func() time.Time { return t }
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := runExiting(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr, now, true)
	stop()
	os.Exit(code)
}
