package local

import (
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// startMarked starts a sleep carrying the mark kv in a process group of
// its own, and waits for it when the test ends.
func startMarked(t *testing.T, kv string) *exec.Cmd {
	t.Helper()
	c := exec.Command("sleep", "300")
	c.Env = []string{kv}
	c.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Process.Kill(); c.Wait() })
	return c
}

// Marks asked for while a scan runs share the next scan: eight runs
// ending together cost a few scans of /proc, not one (and more) each. Each
// call still kills its own mark's process, and only it.
func TestReaper_ConcurrentMarksShareScans(t *testing.T) {
	t.Parallel()
	base := "BONSAI_RUN_ID=reaper-" + filepath.Base(t.TempDir())
	const k = 8
	marks := make([]string, k)
	cmds := make([]*exec.Cmd, k)
	for i := range marks {
		marks[i] = fmt.Sprintf("%s-%d", base, i)
		cmds[i] = startMarked(t, marks[i])
	}
	other := startMarked(t, base+"-other")

	var r Reaper
	entered, release := make(chan struct{}), make(chan struct{})
	var once sync.Once
	r.beforeScan = func() {
		once.Do(func() {
			close(entered)
			<-release
		})
	}
	type result struct {
		n   int
		err error
	}
	results := make([]result, k)
	var wg sync.WaitGroup
	call := func(i int) {
		defer wg.Done()
		n, err := r.Kill(marks[i])
		results[i] = result{n, err}
	}
	wg.Add(k)
	go call(0)
	<-entered // the first scan is about to run, for marks[0] alone
	for i := 1; i < k; i++ {
		go call(i)
	}
	for deadline := time.Now().Add(time.Minute); ; {
		r.mu.Lock()
		n := len(r.waiting)
		r.mu.Unlock()
		if n == k-1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d of %d calls waiting after a minute", n, k-1)
		}
		time.Sleep(time.Millisecond)
	}
	close(release)
	wg.Wait()

	for i, res := range results {
		if res.err != nil || res.n != 1 {
			t.Errorf("Kill(%s) = %d, %v; want 1, nil", marks[i], res.n, res.err)
		}
		if err := cmds[i].Wait(); err == nil {
			t.Errorf("the sleep of %s exited by itself; want it killed", marks[i])
		}
	}
	if err := other.Process.Signal(syscall.Signal(0)); err != nil {
		t.Errorf("a process with another mark was killed: %v", err)
	}
	// One scan finds marks[0]; the next looks for all eight (marks[0]
	// found gone); a third finds the other seven gone: 3 or 4 scans on a
	// quiet machine. A busy one may see a killed process still there
	// after the pause and scan again, for all the marks at once. Scanning
	// for each mark alone takes at least two scans a mark (16).
	if r.scans > k {
		t.Errorf("%d calls took %d scans of /proc; want them to share scans (at most one a call)", k, r.scans)
	}
}

// A mark asked for twice at once is killed once, and both calls get its
// count.
func TestReaper_SameMarkTwice(t *testing.T) {
	t.Parallel()
	kv := "BONSAI_RUN_ID=reaper-twice-" + filepath.Base(t.TempDir())
	c := startMarked(t, kv)
	var r Reaper
	var wg sync.WaitGroup
	ns := make([]int, 2)
	for i := range ns {
		wg.Add(1)
		go func() {
			defer wg.Done()
			n, err := r.Kill(kv)
			if err != nil {
				t.Error(err)
			}
			ns[i] = n
		}()
	}
	wg.Wait()
	if err := c.Wait(); err == nil {
		t.Error("the marked sleep exited by itself; want it killed")
	}
	// Each call found it, in one shared job or in its own scans.
	if ns[0] != 1 && ns[1] != 1 {
		t.Errorf("counts %v: no call found the process", ns)
	}
	if n, err := r.Kill(kv); n != 0 || err != nil {
		t.Errorf("Kill after the process died = %d, %v; want 0, nil", n, err)
	}
}

// A process whose environment is larger than the scan's buffer, its
// mark last, is found all the same.
func TestReaper_LargeEnvironment(t *testing.T) {
	t.Parallel()
	kv := "BONSAI_RUN_ID=reaper-large-" + filepath.Base(t.TempDir())
	c := exec.Command("sleep", "300")
	pad := strings.Repeat("x", 1000)
	for i := range 100 {
		c.Env = append(c.Env, fmt.Sprintf("PAD%d=%s", i, pad))
	}
	c.Env = append(c.Env, kv)
	c.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Process.Kill(); c.Wait() })
	var r Reaper
	if n, err := r.Kill(kv); n != 1 || err != nil {
		t.Fatalf("Kill = %d, %v; want the one process with a 100 KB environment", n, err)
	}
	if err := c.Wait(); err == nil {
		t.Error("the marked sleep exited by itself; want it killed")
	}
}

// BenchmarkMarkedAny is one scan of this machine's process table for a
// mark nothing carries.
func BenchmarkMarkedAny(b *testing.B) {
	want := map[string]bool{"BONSAI_RUN_ID=nothing-carries-this": true}
	for b.Loop() {
		if _, err := markedAny(want); err != nil {
			b.Fatal(err)
		}
	}
}
