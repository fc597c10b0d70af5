package cli

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/bonsai-run/bonsai/internal/agentexec"
	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/config"
	"github.com/bonsai-run/bonsai/internal/engine"
	"github.com/bonsai-run/bonsai/internal/executor"
)

// npmEnginesBin is where .ci/run installs the engine CLIs.
func npmEnginesBin() string {
	if dir := os.Getenv("BONSAI_ENGINES_BIN"); dir != "" {
		return dir
	}
	home, _ := os.UserHomeDir()
	return filepath.Join(home, ".cache", "bonsai-ci", "npm", "node_modules", ".bin")
}

// requireEngineCLI returns the real path of an engine CLI installed for
// the tests (.ci/run), failing on CI when it is missing.
func requireEngineCLI(t *testing.T, program string) string {
	t.Helper()
	real, err := filepath.EvalSymlinks(filepath.Join(npmEnginesBin(), program))
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("%s is not installed in %s: .ci/run installs it", program, npmEnginesBin())
		}
		t.Skipf("%s is not installed (see .ci/run)", program)
	}
	return real
}

// engineSandbox opens the sandbox of ticket demo#1 of a project worked
// by engine en, with home hidden and the CLI found at bin (its links
// resolved, as engineLocate does).
func engineSandbox(t *testing.T, en board.Engine, home, bin string) (*agentexec.Executors, board.Project, func() (executor.Executor, error)) {
	t.Helper()
	requireBwrap(t)
	d := config.Dir(filepath.Join(hostTempDir(t), "data"))
	root := filepath.Join(d.Worktrees(), "demo", strconv.Itoa(1))
	if err := os.MkdirAll(root, 0o700); err != nil {
		t.Fatal(err)
	}
	x := newAgentExecutors(d, config.Config{})
	x.Home = home
	x.Locate = func(engine.Engine) (string, error) { return filepath.EvalSymlinks(bin) }
	p := board.Project{Slug: "demo", Agent: board.AgentSettings{Engine: en, Network: board.NetworkNone}}
	return x, p, func() (executor.Executor, error) { return x.Open(p, root, "") }
}

// cliVersion runs `bin --version` (bin resolved) through ex.
func cliVersion(t *testing.T, ex executor.Executor, bin string) (string, error) {
	t.Helper()
	real, err := filepath.EvalSymlinks(bin)
	if err != nil {
		t.Fatal(err)
	}
	var out, stderr strings.Builder
	res, err := ex.Exec(context.Background(), []string{real, "--version"}, executor.RunOptions{Output: &out, Stderr: &stderr})
	if err == nil && res.Code != 0 {
		err = errors.New("exit " + strconv.Itoa(res.Code) + ": " + stderr.String())
	}
	return out.String(), err
}

// An engine CLI installed where the sandbox hides it — under the home
// (npm with a prefix there, as nvm, volta and fnm do; Claude Code's
// native installer's ~/.local/bin link) or under /tmp — starts in the
// sandbox: its install directory is bound read-only.
func TestEngineCLIUnderTheHomeStartsInTheSandbox(t *testing.T) {
	t.Parallel()
	npmBins := map[board.Engine]string{board.EngineClaudeCode: "claude", board.EngineCodex: "codex", board.EngineOpenCode: "opencode"}
	for en, program := range npmBins {
		t.Run("npm under the home/"+program, func(t *testing.T) {
			t.Parallel()
			real := requireEngineCLI(t, program)
			// The directory holding node_modules stands for the home,
			// as ~/.nvm/versions/node/<v>/lib would.
			home, err := filepath.EvalSymlinks(filepath.Dir(filepath.Dir(npmEnginesBin())))
			if err != nil {
				t.Fatal(err)
			}
			_, _, open := engineSandbox(t, en, home, real)
			ex, err := open()
			if err != nil {
				t.Fatal(err)
			}
			defer ex.(interface{ Close() error }).Close()
			out, err := cliVersion(t, ex, real)
			if err != nil || engine.Version(out) == "" {
				t.Fatalf("%s --version in the sandbox: %v\n%s", program, err, out)
			}
		})
	}
	t.Run("claude in /tmp, linked from ~/.local/bin", func(t *testing.T) {
		t.Parallel()
		real := requireEngineCLI(t, "claude")
		tmp := filepath.Join(t.TempDir(), "claude-native")
		if err := os.MkdirAll(tmp, 0o755); err != nil {
			t.Fatal(err)
		}
		bin := filepath.Join(tmp, "claude")
		if err := os.Link(real, bin); err != nil {
			t.Skipf("cannot link %s into /tmp: %v", real, err)
		}
		home := filepath.Join(hostTempDir(t), "home")
		link := filepath.Join(home, ".local", "bin", "claude")
		if err := os.MkdirAll(filepath.Dir(link), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(bin, link); err != nil {
			t.Fatal(err)
		}
		_, _, open := engineSandbox(t, board.EngineClaudeCode, home, link)
		ex, err := open()
		if err != nil {
			t.Fatal(err)
		}
		defer ex.(interface{ Close() error }).Close()
		out, err := cliVersion(t, ex, link)
		if err != nil || engine.Version(out) == "" {
			t.Fatalf("claude --version in the sandbox: %v\n%s", err, out)
		}
	})
}

// A CLI whose install directory is the home itself cannot be shown
// alone: the project is skipped with the fix.
func TestEngineCLIInTheHomeItselfIsRefused(t *testing.T) {
	t.Parallel()
	real := requireEngineCLI(t, "claude")
	home := filepath.Join(hostTempDir(t), "home")
	if err := os.MkdirAll(home, 0o755); err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(home, "claude")
	if err := os.Link(real, bin); err != nil {
		t.Skipf("cannot link %s: %v", real, err)
	}
	x, p, _ := engineSandbox(t, board.EngineClaudeCode, home, bin)
	err := x.Check(p)
	if !errors.Is(err, executor.ErrSandboxUnavailable) || !strings.Contains(err.Error(), "install it in a directory of its own") {
		t.Fatalf("check = %v; want the sandbox unavailable, with the fix", err)
	}
}
