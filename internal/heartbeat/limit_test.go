package heartbeat_test

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/bonsai-run/bonsai/internal/heartbeat"
)

func TestAutoConcurrency(t *testing.T) {
	t.Parallel()
	const gib = 1 << 30
	for _, tc := range []struct {
		cores int
		mem   uint64
		want  int
	}{
		{2, 16 * gib, 16},   // eight per core: agents mostly wait on the model
		{1, 16 * gib, 8},    // eight on one core
		{16, 3 * gib, 6},    // memory bound: one per 512 MiB
		{3, 0, 24},          // memory unknown: cores
		{1, gib / 4, 1},     // never below one
		{64, 256 * gib, 64}, // never above 64
	} {
		if got := heartbeat.AutoConcurrency(tc.cores, tc.mem); got != tc.want {
			t.Errorf("AutoConcurrency(%d, %d GiB) = %d, want %d", tc.cores, tc.mem/gib, got, tc.want)
		}
	}
	if n := heartbeat.MachineConcurrency(); n < 1 || n > 64 {
		t.Errorf("MachineConcurrency() = %d", n)
	}
	// config.json's number wins; 0 ("auto") is the machine's.
	if got := heartbeat.ConcurrencyLimit(3); got != 3 {
		t.Errorf("ConcurrencyLimit(3) = %d", got)
	}
	if got, want := heartbeat.ConcurrencyLimit(0), heartbeat.MachineConcurrency(); got != want {
		t.Errorf("ConcurrencyLimit(0) = %d, want the machine's %d", got, want)
	}
}

// TestState_SandboxError checks that status reads the sandbox failure of
// heartbeat.json the same way whatever the map's order: the first project
// in slug order that failed, or none.
func TestState_SandboxError(t *testing.T) {
	t.Parallel()
	st := heartbeat.ReadState("")
	if err := st.SandboxError(); err != nil {
		t.Fatalf("no failures: %v", err)
	}
	st.Sandbox["zeta"] = heartbeat.SandboxFailure{Error: "bwrap: zeta"}
	st.Sandbox["beta"] = heartbeat.SandboxFailure{}
	st.Sandbox["alpha"] = heartbeat.SandboxFailure{Error: "bwrap: alpha"}
	for range 20 {
		if err := st.SandboxError(); err == nil || err.Error() != "bwrap: alpha" {
			t.Fatalf("SandboxError() = %v, want alpha's", err)
		}
	}
}

func TestTryLock_WritesPIDAndReportsHolder(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "heartbeat.lock")
	// A longer stale content is cut to the new PID.
	os.WriteFile(path, []byte("1234567890123\n"), 0o644)
	l, err := heartbeat.TryLock(path)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(path)
	if strings.TrimSpace(string(b)) != strconv.Itoa(os.Getpid()) {
		t.Errorf("lock file holds %q, want the PID %d", b, os.Getpid())
	}
	_, err = heartbeat.TryLock(path)
	if !heartbeat.IsHeld(err) || err.Error() != "another heartbeat is running (pid "+strconv.Itoa(os.Getpid())+")" {
		t.Errorf("second TryLock = %v", err)
	}
	if err := l.Unlock(); err != nil {
		t.Fatal(err)
	}
	l2, err := heartbeat.TryLock(path)
	if err != nil {
		t.Fatalf("TryLock after Unlock: %v", err)
	}
	l2.Unlock()
}

func TestOpenLog_Rotates(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	big := make([]byte, 11<<20)
	os.WriteFile(filepath.Join(dir, "heartbeat.log"), big, 0o644)
	f, err := heartbeat.OpenLog(dir, "heartbeat.log")
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("fresh\n")
	f.Close()
	if fi, err := os.Stat(filepath.Join(dir, "heartbeat.log.1")); err != nil || fi.Size() != int64(len(big)) {
		t.Errorf("old log not kept as heartbeat.log.1: %v", err)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "heartbeat.log")); string(b) != "fresh\n" {
		t.Errorf("new log = %q", b)
	}
}
