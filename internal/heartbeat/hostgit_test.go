package heartbeat_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/executor"
	"github.com/bonsai-run/bonsai/internal/executor/local"
	"github.com/bonsai-run/bonsai/internal/gittest"
	"github.com/bonsai-run/bonsai/internal/heartbeat"
	"github.com/bonsai-run/bonsai/internal/workspace"
)

// agentSide marks the commands run through a worktree's executor (the
// sandbox in production), so that a planted program tells whether the
// agent's side or the host's git ran it.
type agentSide struct{ executor.Executor }

func (a agentSide) Exec(ctx context.Context, argv []string, opts executor.RunOptions) (executor.Exit, error) {
	opts.Env = append(append([]string{}, opts.Env...), "BONSAI_TEST_SIDE=agent")
	return a.Executor.Exec(ctx, argv, opts)
}

func (a agentSide) Shell(ctx context.Context, script string, opts executor.RunOptions) (executor.Exit, error) {
	opts.Env = append(append([]string{}, opts.Env...), "BONSAI_TEST_SIDE=agent")
	return a.Executor.Shell(ctx, script, opts)
}

// TestBeat_HostGitRunsNothingTheAgentPlanted is issue 25's rule for the
// host's git in the clone, through the real heartbeat: an agent with the
// sandbox off commits, then plants in the clone hooks (post-checkout,
// reference-transaction, pre-push), an fsmonitor and a smudge filter, and
// moves origin/main to its commit. The push after the run still pushes
// its commit, counted against the default branch the runtime fetched; the
// next beats (the ticket's worktree reused, another ticket's made from a
// default branch whose .gitattributes names the filter) run none of it on
// the host, and the filter runs where the agent's commands run.
func TestBeat_HostGitRunsNothingTheAgentPlanted(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ws, err := workspace.New(workspace.Options{
		Projects:  filepath.Join(e.data, "projects"),
		Worktrees: filepath.Join(e.data, "worktrees"),
		Open:      func(root string) (executor.Executor, error) { return local.New(root, local.Options{}) },
		OpenAgent: func(_ board.Project, root, _ string) (executor.Executor, error) {
			l, err := local.New(root, local.Options{})
			return agentSide{l}, err
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	e.ws, e.opts.Workspaces = ws, ws
	p := e.project("demo", nil)
	planter := e.ticket("demo", "Plant things", board.InProgress)
	other := e.ticket("demo", "Other work", board.InProgress)
	dir := t.TempDir()
	marker := filepath.Join(dir, "ran")
	program := filepath.Join(dir, "evil.sh")
	if err := os.WriteFile(program, []byte("#!/bin/sh\necho \"${BONSAI_TEST_SIDE:-host} $*\" >> "+marker+"\ncat\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	var head string
	ran := map[int]int{}
	e.runner.run = func(ctx context.Context, job heartbeat.Job) (heartbeat.Outcome, error) {
		ran[job.Ticket.Number]++
		if job.Ticket.Number != planter.Number || ran[planter.Number] > 1 {
			return heartbeat.Outcome{Status: board.RunCompleted}, nil
		}
		shell(t, ctx, job, "echo done > feature.txt && git add feature.txt && git commit -q -m 'add feature'")
		head = gittest.Run(t, job.Workspace.Root, "rev-parse", "HEAD")
		shell(t, ctx, job, `set -e
hooks="$(git rev-parse --path-format=absolute --git-common-dir)/hooks"
for h in post-checkout reference-transaction pre-push post-index-change; do
  printf '#!/bin/sh\n`+program+` hook %s $(tr "\\0" " " </proc/$PPID/cmdline) </dev/null\n' "$h" > "$hooks/$h"; chmod +x "$hooks/$h"
done
git config core.fsmonitor `+program+`
git config filter.x.smudge "`+program+` smudge"
git update-ref refs/remotes/origin/main HEAD`)
		return heartbeat.Outcome{Status: board.RunCompleted}, nil
	}
	rep := e.beat()
	if len(rep.Runs) != 1 || !rep.Runs[0].Pushed || rep.Runs[0].PushError != "" {
		t.Fatalf("beat 1 = %+v; want the planter's run, pushed", rep.Runs)
	}
	if got := gittest.Run(t, p.Repo, "rev-parse", "refs/heads/"+e.get(planter.Ref()).Branch); got != head {
		t.Errorf("pushed %s, want the agent's commit %s", got, head)
	}
	// A person's commit on main names the filter for the next checkout.
	if err := os.WriteFile(filepath.Join(p.Repo, ".gitattributes"), []byte("*.txt filter=x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(p.Repo, "notes.txt"), []byte("notes\n"), 0o644)
	gittest.Run(t, p.Repo, "add", ".")
	gittest.Run(t, p.Repo, "commit", "-q", "-m", "attributes")
	for i := 0; i < 6 && (ran[other.Number] == 0 || ran[planter.Number] < 2); i++ {
		e.beat()
	}
	if ran[other.Number] == 0 || ran[planter.Number] < 2 {
		t.Fatalf("runs = %v; want both tickets to run again", ran)
	}
	b, _ := os.ReadFile(marker)
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		if strings.HasPrefix(line, "host") {
			t.Errorf("the host ran what the agent planted: %s", line)
		}
	}
	if !strings.Contains(string(b), "agent smudge") {
		t.Errorf("the filter never ran on the agent's side, so the case tests nothing:\n%s", b)
	}
}
