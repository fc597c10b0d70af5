package sandbox

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestCgroupCountersKept: the cgroup's counter files stay open between
// commands (no open a command), what is read through them is fresh (a
// second fork loop counts more), and Close closes them.
func TestCgroupCountersKept(t *testing.T) {
	requireBwrap(t)
	if _, err := exec.LookPath("perl"); err != nil {
		t.Skip("no perl")
	}
	t.Parallel()
	h := newHost(t)
	ex, err := New(h.root, Options{Home: h.home, DataDir: h.data, GitDir: h.gitDir, Limits: testLimits})
	must(t, err)
	defer ex.Close()
	if ex.cg == nil {
		t.Skip("no cgroup the runtime may create here")
	}
	dirs := []string{ex.cg.v2}
	for _, d := range ex.cg.v1 {
		dirs = append(dirs, d)
	}
	loop := `perl -e 'for (1..300) { defined(my $p = fork) or die "fork: $!\n"; if (!$p) { sleep 30; exit } }'`
	var seen []int64
	var fds []string
	for i := 0; i < 2; i++ {
		bounded(t, ex, loop, time.Minute)
		seen = append(seen, ex.cg.read().pids)
		fds = append(fds, strings.Join(openIn(t, dirs), " "))
	}
	if seen[0] <= 0 || seen[1] <= seen[0] {
		t.Errorf("pids.events' max after each fork loop: %v, want growing from above 0", seen)
	}
	if fds[0] == "" || fds[0] != fds[1] {
		t.Errorf("the descriptors open on the cgroup's files after each command: %q, want the same, not none", fds)
	}
	// A cgroup swept while its executor was idle, made again by the
	// next command, is read afresh: the kept files of the removed one
	// fail (ENODEV) and are opened again.
	ex.stopServer(false)
	for _, d := range dirs {
		if d != "" {
			rmdirWait(t, d)
		}
	}
	bounded(t, ex, loop, time.Minute)
	if n := ex.cg.read().pids; n <= 0 {
		t.Errorf("pids.events' max of the cgroup made again after a fork loop: %d, want above 0", n)
	}
	must(t, ex.Close())
	if left := openIn(t, dirs); len(left) > 0 {
		t.Errorf("descriptors still open on the cgroup's files after Close: %v", left)
	}
}

// rmdirWait removes the empty cgroup d, waiting for the kernel to let
// go of the processes that just ended in it.
func rmdirWait(t *testing.T, d string) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for {
		err := syscall.Rmdir(d)
		if err == nil {
			return
		}
		if !errors.Is(err, syscall.EBUSY) || time.Now().After(deadline) {
			t.Fatalf("remove the cgroup %s: %v", d, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// openIn lists this process's descriptors open on a file in one of
// dirs, as "fd:path".
func openIn(t *testing.T, dirs []string) []string {
	t.Helper()
	ents, err := os.ReadDir("/proc/self/fd")
	must(t, err)
	var found []string
	for _, e := range ents {
		target, err := os.Readlink(filepath.Join("/proc/self/fd", e.Name()))
		if err != nil {
			continue
		}
		for _, d := range dirs {
			if d != "" && filepath.Dir(target) == d {
				found = append(found, e.Name()+":"+target)
			}
		}
	}
	return found
}
