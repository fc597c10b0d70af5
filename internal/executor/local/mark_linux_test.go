package local_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/bonsai-run/bonsai/internal/executor"
	"github.com/bonsai-run/bonsai/internal/executor/local"
)

// alive reports whether pid is a live process (not gone, not a zombie).
func alive(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	i := bytes.LastIndexByte(b, ')')
	return i >= 0 && i+2 < len(b) && b[i+2] != 'Z' && b[i+2] != 'X'
}

// waitFor polls cond until it holds, failing after a generous bound.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for i := 0; i < 1000; i++ {
		if cond() {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("timed out waiting: %s", what)
}

// readPID waits for a file holding a pid and returns it.
func readPID(t *testing.T, path string) int {
	t.Helper()
	var pid int
	waitFor(t, "pid in "+path, func() bool {
		b, err := os.ReadFile(path)
		if err != nil {
			return false
		}
		pid, err = strconv.Atoi(strings.TrimSpace(string(b)))
		return err == nil && pid > 0
	})
	return pid
}

// A command that escapes its process group with setsid and a double fork
// outlives the call; KillMarked finds it by the executor's mark and kills
// it, and leaves alone a process carrying another mark.
func TestKillMarked_SetsidDoubleFork(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	l, err := local.New(root, local.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	mark := "BONSAI_RUN_ID=test-" + filepath.Base(root)
	l.Mark(mark)
	script := `setsid sh -c 'sleep 300 & echo $! > pid' && printenv BONSAI_RUN_ID`
	var out bytes.Buffer
	exit, err := l.Shell(context.Background(), script, executor.RunOptions{Output: &out})
	if err != nil || exit.Code != 0 {
		t.Fatalf("shell: %v, exit %+v: %s", err, exit, out.String())
	}
	if got := strings.TrimSpace(out.String()); "BONSAI_RUN_ID="+got != mark {
		t.Fatalf("command saw BONSAI_RUN_ID=%q, want %q", got, mark)
	}
	pid := readPID(t, filepath.Join(root, "pid"))
	if !alive(pid) {
		t.Fatalf("the escaped sleep %d died with its command; this test shows nothing", pid)
	}
	other := exec.Command("sleep", "300")
	other.Env = append(os.Environ(), mark+"-other")
	if err := other.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { other.Process.Kill(); other.Wait() }()

	n, err := local.KillMarked(mark)
	if err != nil || n < 1 {
		t.Fatalf("KillMarked = %d, %v; want at least 1 process killed", n, err)
	}
	waitFor(t, "the escaped sleep to die", func() bool { return !alive(pid) })
	if !alive(other.Process.Pid) {
		t.Error("KillMarked killed a process with another mark")
	}
	if n, err := local.KillMarked(mark); n != 0 || err != nil {
		t.Errorf("second KillMarked = %d, %v; want 0, nil", n, err)
	}
}

// A runtime killed with SIGKILL takes the command it was running with it.
func TestLocal_CommandDiesWithRuntime(t *testing.T) {
	if dir := os.Getenv("BONSAI_DEATH_HELPER"); dir != "" {
		l, err := local.New(dir, local.Options{})
		if err != nil {
			os.Exit(2)
		}
		l.Shell(context.Background(), "echo $$ > pid; sleep 300", executor.RunOptions{})
		os.Exit(0)
	}
	t.Parallel()
	dir := t.TempDir()
	cmd := exec.Command(os.Args[0], "-test.run=^TestLocal_CommandDiesWithRuntime$")
	cmd.Env = append(os.Environ(), "BONSAI_DEATH_HELPER="+dir)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	pid := readPID(t, filepath.Join(dir, "pid"))
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	cmd.Wait()
	waitFor(t, "the command to die with its runtime", func() bool { return !alive(pid) })
}
