//go:build linux

package sandbox

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/bonsai-run/bonsai/internal/executor"
)

// limitCase is an attack on a limit: the script, run in a sandbox with
// testLimits, must fail with one of want in its output.
type limitCase struct {
	name   string
	skip   func(*testing.T, *Executor)
	script string
	want   []string
}

// testLimits are small, so that the attacks below stay cheap for the
// machine running the tests.
var testLimits = Limits{Memory: 256 << 20, Processes: 64, Tmp: 16 << 20, FileSize: 32 << 20, DiskGrowth: 96 << 20}

// bounded runs script in ex with a timeout that bounds the test should
// a limit fail, and returns the exit and the output.
func bounded(t *testing.T, ex executor.Executor, script string, timeout time.Duration) (executor.Exit, string) {
	t.Helper()
	var out bytes.Buffer
	x, err := ex.Shell(context.Background(), script, executor.RunOptions{Output: &out, Timeout: timeout})
	must(t, err)
	return x, out.String()
}

// limitsHost opens a sandbox with testLimits on a fresh host layout,
// with a cgroup if the runtime may create one here, else (or with
// rlimitsOnly) with its rlimits alone.
func limitsHost(t *testing.T, rlimitsOnly bool) (host, *Executor) {
	h := newHost(t)
	ex := open(t, h.root, Options{Home: h.home, DataDir: h.data, GitDir: h.gitDir, Limits: testLimits, noCgroup: rlimitsOnly})
	return h, ex
}

// bounds says whether the processes of a sandbox are bounded here: by
// its cgroup, or by RLIMIT_NPROC, which root ignores.
func bounds(ex *Executor) bool { return ex.cg != nil || os.Geteuid() != 0 }

// TestLimits: a fork bomb, a memory hog, a /tmp fill, a 10 GB write and
// a workspace that keeps growing each end as a failed command saying
// which limit it met, and the next command of the same sandbox runs
// normally (issue 25, finding 7). Without the limits each would succeed
// (the scripts are sized so that even then they stay small).
func TestLimits(t *testing.T) {
	requireBwrap(t)
	perl := func(t *testing.T) {
		if _, err := exec.LookPath("perl"); err != nil {
			t.Skip("no perl")
		}
	}
	cases := []limitCase{
		{"fork loop", func(t *testing.T, ex *Executor) {
			perl(t)
			if !bounds(ex) {
				t.Skip("root without a cgroup to create: nothing bounds processes here")
			}
		}, `perl -e 'for (1..300) { defined(my $p = fork) or die "fork: $!\n"; if (!$p) { sleep 30; exit } } print "forked all\n"'`,
			[]string{"Resource temporarily unavailable"}},
		{"fork bomb", func(t *testing.T, ex *Executor) {
			if !bounds(ex) {
				t.Skip("root without a cgroup to create: nothing bounds processes here")
			}
		}, `bomb() { bomb | bomb & }; bomb; sleep 600`,
			[]string{"Resource temporarily unavailable", "the sandbox ended while the command ran"}},
		{"memory hog", func(t *testing.T, ex *Executor) {
			perl(t)
			if ex.cg == nil && raceBuild {
				t.Skip("a race build's command server sets no RLIMIT_DATA, and there is no cgroup")
			}
		},
			`perl -e '$x = "a" x (1024 * 1024 * 1024); print "allocated\n"'`, []string{"Out of memory", "ran out of its 256 MiB of memory"}},
		{"memory of many processes", func(t *testing.T, ex *Executor) {
			perl(t)
			if ex.cg == nil {
				t.Skip("no cgroup here: each process is bounded, not their sum")
			}
		}, `for i in 1 2 3 4 5 6; do perl -e '$x = "a" x (100 << 20); sleep 3' & done; wait; exit 0`,
			[]string{"ran out of its 256 MiB of memory"}},
		{"tmp fill", func(t *testing.T, ex *Executor) {
			if ex.opts.PerCommand {
				t.Skip("one bwrap per command: no command server to see /tmp")
			}
		}, `head -c 64M /dev/zero > /tmp/fill`, []string{"filled the sandbox's /tmp of 16 MiB (limits.tmpMiB in config.json)"}},
		{"10 GB write", nil, `head -c 10G /dev/zero > big`, []string{"writing a file larger than 32 MiB"}},
		{"workspace growth", nil, `for i in $(seq 40); do head -c 8M /dev/zero > f$i || exit; sleep 0.1; done`,
			[]string{"grew by", "past the limit of 96 MiB"}},
	}
	for _, mode := range []string{"cgroup", "rlimits"} {
		t.Run(mode, func(t *testing.T) { runLimitCases(t, mode == "rlimits", cases) })
	}
}

func runLimitCases(t *testing.T, rlimitsOnly bool, cases []limitCase) {
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, ex := limitsHost(t, rlimitsOnly)
			if !rlimitsOnly && ex.cg == nil {
				t.Skip("no cgroup the runtime may create here")
			}
			if c.skip != nil {
				c.skip(t, ex)
			}
			// The bomb never ends by itself: the timeout ends it.
			x, out := bounded(t, ex, c.script, 10*time.Second)
			t.Logf("exit %d, output %q", x.Code, tailOf(out))
			if x.Code == 0 {
				t.Fatalf("the command succeeded: %q", tailOf(out))
			}
			found := false
			for _, w := range c.want {
				found = found || strings.Contains(out, w)
			}
			if !found {
				t.Errorf("exit %d, output %q, want one of %q", x.Code, tailOf(out), c.want)
			}
			if strings.Contains(out, " in config.json)") != (x.Limit != "") || !strings.Contains(out, x.Limit) {
				t.Errorf("Exit.Limit %q does not match the output's note: %q", x.Limit, tailOf(out))
			}
			if c.name == "workspace growth" {
				bounded(t, ex, "rm -f f*", time.Minute)
			}
			next, out := bounded(t, ex, "echo next", time.Minute)
			if next.Code != 0 || strings.TrimSpace(out) != "next" {
				t.Fatalf("the next command: exit %d, output %q", next.Code, out)
			}
		})
	}
}

func tailOf(s string) string {
	if len(s) > 600 {
		return "…" + s[len(s)-600:]
	}
	return s
}

// TestLimitsCgroupRemoved: the executor's cgroup, when it had one, is
// gone once it closes.
func TestLimitsCgroupRemoved(t *testing.T) {
	requireBwrap(t)
	h := newHost(t)
	ex, err := New(h.root, Options{Home: h.home, DataDir: h.data, GitDir: h.gitDir, Limits: testLimits})
	must(t, err)
	if ex.cg == nil {
		ex.Close()
		t.Skip("no cgroup the runtime may create here")
	}
	if code, out := shell(t, ex, "true"); code != 0 {
		t.Fatalf("exit %d: %s", code, out)
	}
	dirs := []string{ex.cg.v2}
	for _, d := range ex.cg.v1 {
		dirs = append(dirs, d)
	}
	must(t, ex.Close())
	for _, d := range dirs {
		if _, err := os.Stat(d); d != "" && err == nil {
			t.Errorf("%s is left after Close", d)
		}
	}
}
