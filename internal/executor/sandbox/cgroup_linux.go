package sandbox

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// cgroup is where a sandbox's processes start, bounded by Limits.Memory
// and Limits.Processes together: a directory of the runtime's delegated
// cgroup v2 tree, or, on a cgroup v1 host where the runtime may create
// cgroups (root), one directory in each of the pids and memory
// hierarchies. Only the runtime writes these files: inside the sandbox
// /sys is read-only.
type cgroup struct {
	l  Limits
	v2 string // the v2 directory; "" on v1
	// v1 maps a controller to the sandbox's directory in its hierarchy,
	// back to the tasks file of the runtime's own cgroup there.
	v1, back map[string]string
	// kept are the counter files read holds open for c's life (pread at
	// offset 0 reads the kernel's current values): two opens a command
	// fewer. remove closes them.
	kept keptCounters
}

// newCgroup creates the cgroup of one sandbox with l's bounds, or
// returns nil when the runtime has no cgroup it may divide (the
// sandbox then relies on rlimits alone).
func newCgroup(l Limits) *cgroup {
	if l.Memory <= 0 && l.Processes <= 0 {
		return nil
	}
	self, err := os.ReadFile("/proc/self/cgroup")
	if err != nil {
		return nil
	}
	mounts, err := os.ReadFile("/proc/self/mountinfo")
	if err != nil {
		return nil
	}
	name := "bonsai-sandbox-" + randomHex()
	if c := newCgroupV2(string(self), string(mounts), name, l); c != nil {
		return c
	}
	return newCgroupV1(string(self), string(mounts), name, l)
}

func randomHex() string {
	b := make([]byte, 6)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// newCgroupV2 makes name a child of the runtime's own cgroup v2, when
// that cgroup is the runtime's to divide (systemd Delegate=yes, a user
// scope): the memory and pids controllers available, the directory
// writable. The runtime's processes move to a leaf of their own first
// (cgroup v2 keeps processes out of a cgroup whose controllers are
// enabled for its children).
func newCgroupV2(self, mounts, name string, l Limits) *cgroup {
	mnt := mountPoint(mounts, "cgroup2", "")
	var rel string
	for _, line := range strings.Split(self, "\n") {
		if p, ok := strings.CutPrefix(line, "0::"); ok {
			rel = p
		}
	}
	if mnt == "" || rel == "" {
		return nil
	}
	// Once delegated, the runtime lives in the leaf made for it.
	rel = strings.TrimSuffix(rel, "/"+runtimeLeaf)
	parent := filepath.Join(mnt, rel)
	if err := delegateV2(parent); err != nil {
		return nil
	}
	sweepNow(parent)
	c := &cgroup{l: l, v2: filepath.Join(parent, name)}
	if c.create(c.v2, "") != nil {
		c.remove()
		return nil
	}
	return c
}

// runtimeLeaf is the cgroup v2 leaf the runtime moves to (delegateV2).
const runtimeLeaf = "bonsai-runtime"

// create makes dir, the cgroup of controller ctl ("" for v2's, which has
// both), if missing, with c's bounds.
func (c *cgroup) create(dir, ctl string) error {
	if err := os.Mkdir(dir, 0o755); err != nil && !errors.Is(err, os.ErrExist) {
		return err
	}
	var err error
	if ctl == "" || ctl == "pids" {
		err = writeLimit(dir, "pids.max", int64(c.l.Processes))
	}
	switch ctl {
	case "":
		err = errors.Join(err, writeLimit(dir, "memory.max", c.l.Memory))
		if err == nil && c.l.Memory > 0 {
			// No swap beyond the memory: absent without swap accounting.
			_ = os.WriteFile(filepath.Join(dir, "memory.swap.max"), []byte("0"), 0)
		}
	case "memory":
		err = writeLimit(dir, "memory.limit_in_bytes", c.l.Memory)
		if err == nil {
			_ = writeLimit(dir, "memory.memsw.limit_in_bytes", c.l.Memory)
		}
	}
	return err
}

// sweepAge is how old an empty sandbox cgroup must be for sweep to
// remove it: one a runtime killed before its Close left behind. A live
// executor whose cgroup was swept makes it again when it next starts a
// sandbox.
const sweepAge = 10 * time.Minute

// sweep removes the empty sandbox cgroups older than sweepAge in
// parent (a cgroup with processes cannot be removed).
func sweep(parent string) {
	ents, _ := os.ReadDir(parent)
	for _, e := range ents {
		if !e.IsDir() || !strings.HasPrefix(e.Name(), "bonsai-sandbox-") {
			continue
		}
		if fi, err := e.Info(); err == nil && time.Since(fi.ModTime()) > sweepAge {
			_ = syscall.Rmdir(filepath.Join(parent, e.Name()))
		}
	}
}

// sweepEvery is how often sweepNow sweeps one parent: a beat starting
// hundreds of sandboxes read all their siblings' directories for each
// (quadratic), where what a sweep removes is ten minutes old at least.
const sweepEvery = time.Minute

// swept is when sweepNow last swept each parent.
var swept struct {
	mu sync.Mutex
	at map[string]time.Time
}

// sweepNow sweeps parent unless it did in the last sweepEvery, and
// reports whether it swept.
func sweepNow(parent string) bool {
	swept.mu.Lock()
	now := time.Now()
	if last, ok := swept.at[parent]; ok && now.Sub(last) < sweepEvery {
		swept.mu.Unlock()
		return false
	}
	if swept.at == nil {
		swept.at = map[string]time.Time{}
	}
	swept.at[parent] = now
	swept.mu.Unlock()
	sweep(parent)
	return true
}

var delegated struct {
	once sync.Once
	err  error
}

// delegateV2 enables the memory and pids controllers for the children of
// parent, once per process, moving the runtime into parent/bonsai-runtime
// if parent holds it.
func delegateV2(parent string) error {
	delegated.once.Do(func() {
		have, err := os.ReadFile(filepath.Join(parent, "cgroup.controllers"))
		if err != nil || !hasWords(string(have), "memory", "pids") {
			delegated.err = errors.New("the memory and pids controllers are not delegated")
			return
		}
		on, _ := os.ReadFile(filepath.Join(parent, "cgroup.subtree_control"))
		if hasWords(string(on), "memory", "pids") {
			return
		}
		leaf := filepath.Join(parent, runtimeLeaf)
		if err := os.Mkdir(leaf, 0o755); err != nil && !errors.Is(err, os.ErrExist) {
			delegated.err = err
			return
		}
		if err := os.WriteFile(filepath.Join(leaf, "cgroup.procs"), []byte(strconv.Itoa(os.Getpid())), 0); err != nil {
			delegated.err = err
			return
		}
		delegated.err = os.WriteFile(filepath.Join(parent, "cgroup.subtree_control"), []byte("+memory +pids"), 0)
	})
	return delegated.err
}

// newCgroupV1 creates name in the pids and memory hierarchies of a
// cgroup v1 host, below the runtime's own cgroups, where it may (root).
func newCgroupV1(self, mounts, name string, l Limits) *cgroup {
	c := &cgroup{l: l, v1: map[string]string{}, back: map[string]string{}}
	for _, line := range strings.Split(self, "\n") {
		f := strings.SplitN(line, ":", 3)
		if len(f) != 3 {
			continue
		}
		for _, ctl := range strings.Split(f[1], ",") {
			if ctl == "pids" && l.Processes <= 0 || ctl == "memory" && l.Memory <= 0 || ctl != "pids" && ctl != "memory" {
				continue
			}
			mnt := mountPoint(mounts, "cgroup", ctl)
			if mnt == "" {
				continue
			}
			parent := filepath.Join(mnt, f[2])
			sweepNow(parent)
			dir := filepath.Join(parent, name)
			if os.Mkdir(dir, 0o755) != nil {
				continue // not the runtime's to divide
			}
			c.v1[ctl], c.back[ctl] = dir, filepath.Join(parent, "tasks")
			if c.create(dir, ctl) != nil {
				c.remove()
				return nil
			}
		}
	}
	if len(c.v1) == 0 {
		return nil
	}
	return c
}

// mountPoint finds the mount point of fstype (with option opt, for v1)
// in /proc/self/mountinfo's text.
func mountPoint(mountinfo, fstype, opt string) string {
	for _, line := range strings.Split(mountinfo, "\n") {
		pre, post, ok := strings.Cut(line, " - ")
		if !ok {
			continue
		}
		pf, qf := strings.Fields(pre), strings.Fields(post)
		if len(pf) < 5 || len(qf) < 3 || qf[0] != fstype {
			continue
		}
		if opt == "" || hasWords(strings.ReplaceAll(qf[2], ",", " "), opt) {
			return pf[4]
		}
	}
	return ""
}

func hasWords(s string, words ...string) bool {
	f := strings.Fields(s)
	for _, w := range words {
		found := false
		for _, x := range f {
			found = found || x == w
		}
		if !found {
			return false
		}
	}
	return true
}

// writeLimit writes v to dir/file; v <= 0 writes nothing.
func writeLimit(dir, file string, v int64) error {
	if v <= 0 {
		return nil
	}
	return os.WriteFile(filepath.Join(dir, file), []byte(strconv.FormatInt(v, 10)), 0)
}

// start starts cmd's process inside c. On v2 the kernel puts it there
// as it is created (CLONE_INTO_CGROUP); on v1 the calling thread, which
// the caller has locked, moves in for the fork and back after, so that
// nothing bwrap forks can start outside.
func (c *cgroup) start(attr *syscall.SysProcAttr, start func() error) error {
	if c == nil {
		return start()
	}
	if c.v2 != "" {
		if err := c.create(c.v2, ""); err != nil {
			return fmt.Errorf("sandbox: cgroup: %w", err)
		}
		f, err := os.Open(c.v2)
		if err != nil {
			return fmt.Errorf("sandbox: cgroup: %w", err)
		}
		defer f.Close()
		attr.UseCgroupFD, attr.CgroupFD = true, int(f.Fd())
		return start()
	}
	tid := []byte(strconv.Itoa(syscall.Gettid()))
	defer func() {
		for ctl := range c.v1 {
			_ = os.WriteFile(c.back[ctl], tid, 0)
		}
	}()
	for ctl, dir := range c.v1 {
		if err := c.create(dir, ctl); err != nil {
			return fmt.Errorf("sandbox: cgroup %s: %w", ctl, err)
		}
		if err := os.WriteFile(filepath.Join(dir, "tasks"), tid, 0); err != nil {
			return fmt.Errorf("sandbox: cgroup %s: %w", ctl, err)
		}
	}
	return start()
}

// boundsMemory reports whether c limits the sandbox's memory.
func (c *cgroup) boundsMemory() bool {
	if c == nil || c.l.Memory <= 0 {
		return false
	}
	if c.v2 != "" {
		return true
	}
	_, ok := c.v1["memory"]
	return ok
}

// counters are how often the sandbox met its bounds so far.
type counters struct{ pids, oom int64 }

// read returns c's counters: pids.events' max, and memory.events'
// oom_kill (v2) or memory.oom_control's oom_kill (v1), read through the
// files c keeps open (counters_linux.go).
func (c *cgroup) read() counters {
	var n counters
	if c == nil {
		return n
	}
	pids, mem := c.v2, c.v2
	memFile := "memory.events"
	if c.v2 == "" {
		pids, mem, memFile = c.v1["pids"], c.v1["memory"], "memory.oom_control"
	}
	c.kept.mu.Lock()
	defer c.kept.mu.Unlock()
	if pids != "" {
		n.pids = c.kept.field(&c.kept.pids, filepath.Join(pids, "pids.events"), "max")
	}
	if mem != "" {
		n.oom = c.kept.field(&c.kept.mem, filepath.Join(mem, memFile), "oom_kill")
	}
	return n
}

// field returns the number after name in the flat-keyed cgroup file b.
func field(b []byte, name string) int64 {
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, name+" "); ok {
			n, _ := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
			return n
		}
	}
	return 0
}

// remove removes c's directories once the processes in them are gone,
// waiting a little for the kernel to finish killing a namespace.
func (c *cgroup) remove() {
	if c == nil {
		return
	}
	c.kept.close()
	dirs := []string{c.v2}
	if c.v2 == "" {
		dirs = dirs[:0]
		for _, d := range c.v1 {
			dirs = append(dirs, d)
		}
	}
	for _, d := range dirs {
		for i := 0; i < 50; i++ {
			if err := syscall.Rmdir(d); err == nil || !errors.Is(err, syscall.EBUSY) {
				break
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
}
