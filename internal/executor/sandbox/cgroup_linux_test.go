package sandbox

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/bonsai-run/bonsai/internal/executor/sandbox/execserver"
)

// TestMountPoint: the cgroup hierarchies are found in mountinfo by file
// system type, and a v1 one by its controller option.
func TestMountPoint(t *testing.T) {
	info := `24 18 0:22 / /sys/fs/cgroup rw,nosuid - tmpfs tmpfs rw,mode=755
30 24 0:26 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw,nsdelegate
31 24 0:27 / /sys/fs/cgroup/pids rw,relatime - cgroup cgroup rw,pids
32 24 0:28 / /sys/fs/cgroup/memory rw,relatime - cgroup cgroup rw,memory
33 24 0:29 / /sys/fs/cgroup/cpu,cpuacct rw,relatime - cgroup cgroup rw,cpu,cpuacct`
	for _, c := range []struct{ fstype, opt, want string }{
		{"cgroup2", "", "/sys/fs/cgroup/unified"},
		{"cgroup", "pids", "/sys/fs/cgroup/pids"},
		{"cgroup", "memory", "/sys/fs/cgroup/memory"},
		{"cgroup", "cpuacct", "/sys/fs/cgroup/cpu,cpuacct"},
		{"cgroup", "blkio", ""},
	} {
		if got := mountPoint(info, c.fstype, c.opt); got != c.want {
			t.Errorf("mountPoint(%s, %s) = %q, want %q", c.fstype, c.opt, got, c.want)
		}
	}
}

// TestLimitsSpec: the command server reads back what the host wrote.
func TestLimitsSpec(t *testing.T) {
	l := Limits{Memory: 1 << 30, Processes: 64, FileSize: 5 << 20}
	m, err := execserver.ParseLimits(l.serverSpec(false))
	if err != nil || m["data"] != 1<<30 || m["nproc"] != 64 || m["fsize"] != 5<<20 || len(m) != 3 {
		t.Fatalf("%v %v", m, err)
	}
	// With a cgroup bounding memory, the allocation meets the cgroup
	// (an OOM kill the runtime names), not RLIMIT_DATA.
	if m, err := execserver.ParseLimits(l.serverSpec(true)); err != nil || m["data"] != 0 || m["nproc"] != 64 || len(m) != 2 {
		t.Fatalf("cgrouped: %v %v", m, err)
	}
	if m, err := execserver.ParseLimits(Limits{}.serverSpec(false)); err != nil || len(m) != 0 {
		t.Fatalf("no limits: %v %v", m, err)
	}
	if _, err := execserver.ParseLimits("data=x"); err == nil {
		t.Fatal("a bad spec accepted")
	}
	if _, err := New(t.TempDir(), Options{Limits: Limits{Memory: -1}}); err == nil {
		t.Fatal("a negative limit accepted")
	}
}

// A parent cgroup is swept at most once a sweepEvery: a beat starting
// hundreds of sandboxes does not read all their siblings for each.
func TestSweepNow_OncePerInterval(t *testing.T) {
	t.Parallel()
	parent := t.TempDir()
	old := filepath.Join(parent, "bonsai-sandbox-left")
	leave := func() {
		if err := os.Mkdir(old, 0o755); err != nil {
			t.Fatal(err)
		}
		past := time.Now().Add(-time.Hour)
		if err := os.Chtimes(old, past, past); err != nil {
			t.Fatal(err)
		}
	}
	leave()
	if !sweepNow(parent) || exists(old) {
		t.Fatal("the first sweep kept an empty sandbox cgroup an hour old")
	}
	leave()
	if sweepNow(parent) || !exists(old) {
		t.Error("the parent was swept again at once")
	}
}
