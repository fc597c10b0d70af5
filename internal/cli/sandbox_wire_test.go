package cli

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bonsai-run/bonsai/internal/agentexec"
	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/config"
	"github.com/bonsai-run/bonsai/internal/executor"
	"github.com/bonsai-run/bonsai/internal/executor/sandbox"
)

// TestAgentExecutors_CachesPerProject: with the data directory in the
// home, as by default, each project's sandbox commits in its worktree,
// cannot read the web token, writes its own toolchain caches under the
// data directory and cannot see another project's.
func TestAgentExecutors_CachesPerProject(t *testing.T) {
	t.Parallel()
	if err := sandbox.Available(); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("bwrap is required on CI: %v", err)
		}
		t.Skip(err)
	}
	base, err := os.MkdirTemp("/var/tmp", "bonsai-caches-test-") // outside the sandbox's private /tmp
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(base) })
	// The default layout: the data directory in the home.
	home := filepath.Join(base, "home")
	data := filepath.Join(home, ".bonsai")
	if err := os.MkdirAll(data, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(data, "web-token"), []byte("token\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	x := newAgentExecutors(config.Dir(data), config.Config{})
	x.Home = home
	open := func(slug string) executor.Executor {
		clone := filepath.Join(data, "projects", slug)
		root := filepath.Join(data, "worktrees", slug, "1")
		for _, args := range [][]string{{"init", "-q", "-b", "main", clone}, {"-C", clone, "commit", "-q", "--allow-empty", "-m", "first"}, {"-C", clone, "worktree", "add", "-q", root}} {
			cmd := exec.Command("git", append([]string{"-c", "user.name=t", "-c", "user.email=t@e"}, args...)...)
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("git %v: %v %s", args, err, out)
			}
		}
		ex, err := x.Open(board.Project{Slug: slug}, root, clone)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { ex.(interface{ Close() error }).Close() })
		return ex
	}
	shell := func(ex executor.Executor, script string) string {
		var out strings.Builder
		if _, err := ex.Shell(context.Background(), script, executor.RunOptions{Output: &out}); err != nil {
			t.Fatal(err)
		}
		return out.String()
	}
	a, b := open("alpha"), open("beta")
	if out := shell(a, `echo alpha > "$GOCACHE/mark"; git -c user.name=t -c user.email=t@e commit -q --allow-empty -m inside && echo committed; cat `+filepath.Join(data, "web-token")+` 2>/dev/null || echo no-token`); out != "committed\nno-token\n" {
		t.Errorf("in alpha's sandbox: %q", out)
	}
	if got, err := os.ReadFile(filepath.Join(data, "caches", "alpha", "gocache", "mark")); err != nil || string(got) != "alpha\n" {
		t.Fatalf("alpha's cache on the host: %q, %v", got, err)
	}
	out := shell(b, `cat "$GOCACHE/mark" 2>/dev/null || echo own-cache; cat `+filepath.Join(data, "caches", "alpha", "gocache", "mark")+
		` 2>/dev/null || echo hidden; echo $GOCACHE $CARGO_HOME $npm_config_cache $PIP_CACHE_DIR $GOMODCACHE`)
	if strings.Contains(out, "alpha\n") || !strings.Contains(out, "own-cache\nhidden\n") {
		t.Errorf("beta sees alpha's cache:\n%s", out)
	}
	for _, k := range agentexec.ToolchainCaches {
		if !strings.Contains(out, "/.cache/bonsai/"+strings.ToLower(k)) {
			t.Errorf("%s not set inside the sandbox:\n%s", k, out)
		}
	}
}

// TestNetworkModes_NameTheSandboxes: agentexec's network modes are the
// sandbox's, which openSandbox converts by name.
func TestNetworkModes_NameTheSandboxes(t *testing.T) {
	t.Parallel()
	for m, s := range map[agentexec.Network]sandbox.Network{
		agentexec.NetworkProxy: sandbox.NetworkProxy, agentexec.NetworkNone: sandbox.NetworkNone, agentexec.NetworkAll: sandbox.NetworkAll,
	} {
		if string(m) != string(s) {
			t.Errorf("agentexec %q is sandbox %q", m, s)
		}
	}
}
