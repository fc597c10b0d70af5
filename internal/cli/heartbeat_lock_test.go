package cli_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bonsai-run/bonsai/internal/cli"
	"github.com/bonsai-run/bonsai/internal/heartbeat"
)

// TestHeartbeat_SecondBeatWhileLocked holds the heartbeat lock as a running
// beat would and runs `bonsai heartbeat`: it must say who holds the lock,
// log it, and exit 0 without touching the board.
func TestHeartbeat_SecondBeatWhileLocked(t *testing.T) {
	data := t.TempDir()
	if err := cli.SeedData(data); err != nil { // a copy of the migrated board
		t.Fatal(err)
	}
	t.Setenv("BONSAI_DATA_DIR", data)
	t.Setenv("HOME", t.TempDir())
	run := func(args ...string) (int, string, string) {
		var out, errOut bytes.Buffer
		code := cli.Run(context.Background(), args, strings.NewReader(""), &out, &errOut)
		return code, out.String(), errOut.String()
	}
	if code, _, stderr := run("init"); code != 0 {
		t.Fatalf("init: %d %s", code, stderr)
	}
	lock, err := heartbeat.TryLock(filepath.Join(data, "heartbeat.lock"))
	if err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := run("heartbeat")
	want := fmt.Sprintf("another heartbeat is running (pid %d)", os.Getpid())
	if code != 0 || strings.TrimSpace(stdout) != want || stderr != "" {
		t.Errorf("heartbeat under a held lock: exit %d, stdout %q, stderr %q; want 0 and %q", code, stdout, stderr, want)
	}
	log, _ := os.ReadFile(filepath.Join(data, "logs", "heartbeat.log"))
	if !strings.Contains(string(log), want) {
		t.Errorf("heartbeat.log does not say %q:\n%s", want, log)
	}
	lock.Unlock()
	if code, stdout, _ := run("heartbeat"); code != 0 || !strings.HasPrefix(stdout, "Nothing to do") {
		t.Errorf("heartbeat after the lock was released: exit %d, %q", code, stdout)
	}
}
