package tickettool

import (
	"bytes"
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/executor"
)

// Output kept from the verify command for the model and the comment.
const (
	tailLines = 60
	tailBytes = 8 << 10
)

// verification is one run of the project's verify command.
type verification struct {
	Command  string
	Code     int
	TimedOut bool
	Duration time.Duration
	Tail     string
}

func (v verification) passed() bool { return v.Code == 0 && !v.TimedOut }

func (v verification) failure() string {
	if v.TimedOut {
		return "timed out after " + v.Duration.Round(time.Second).String()
	}
	return "exited with code " + strconv.Itoa(v.Code)
}

// runVerify runs the verify command with bash in the worktree, with the
// executor's clean environment (no secrets) and the bash tool's timeout.
func (s *Session) runVerify(ctx context.Context) (verification, error) {
	var out bytes.Buffer
	exit, err := s.cfg.Exec.Shell(ctx, s.cfg.Verify, executor.RunOptions{Output: &out, Timeout: s.cfg.VerifyTimeout})
	if err != nil {
		return verification{}, fmt.Errorf("run verify command: %w", err)
	}
	if exit.Canceled {
		return verification{}, fmt.Errorf("run verify command: %w", context.Cause(ctx))
	}
	return verification{Command: s.cfg.Verify, Code: exit.Code, TimedOut: exit.TimedOut,
		Duration: exit.Duration, Tail: tail(out.String())}, nil
}

// tail keeps the last lines of out, within tailLines and tailBytes.
func tail(out string) string {
	out = strings.TrimRight(out, "\n")
	lines := strings.Split(out, "\n")
	cut := false
	if len(lines) > tailLines {
		lines, cut = lines[len(lines)-tailLines:], true
	}
	s := strings.Join(lines, "\n")
	if len(s) > tailBytes {
		s, cut = s[len(s)-tailBytes:], true
	}
	if cut {
		s = "[…]\n" + s
	}
	return s
}

// gitCheck asks git about the worktree.
type gitCheck struct {
	ex   executor.Executor
	base string
}

func (g *gitCheck) git(ctx context.Context, args ...string) (string, error) {
	var out, errOut bytes.Buffer
	exit, err := g.ex.Exec(ctx, append([]string{"git"}, args...), executor.RunOptions{Output: &out, Stderr: &errOut, Timeout: time.Minute})
	if err != nil {
		return "", fmt.Errorf("git %s: %w", args[0], err)
	}
	if exit.Code != 0 {
		return "", fmt.Errorf("git %s: %s", args[0], strings.TrimSpace(errOut.String()))
	}
	return strings.TrimRight(out.String(), "\n"), nil
}

// ready returns what keeps the worktree from review: uncommitted or
// untracked files, or no commit on the branch.
func (g *gitCheck) ready(ctx context.Context) (string, error) {
	status, err := g.git(ctx, "status", "--porcelain")
	if err != nil {
		return "", err
	}
	if status != "" {
		lines := strings.Split(status, "\n")
		if len(lines) > 10 {
			lines = append(lines[:10], fmt.Sprintf("… and %d more", len(lines)-10))
		}
		return "the worktree has uncommitted changes; commit them (or remove what does not belong) first:\n" + strings.Join(lines, "\n"), nil
	}
	n, err := g.git(ctx, "rev-list", "--count", g.base+"..HEAD")
	if err != nil {
		return "", err
	}
	if n == "0" {
		return "the branch has no commit beyond " + g.base + "; commit your work first", nil
	}
	return "", nil
}

// summary is the verification summary of the completion comment: the
// verify command's result, the diff stat and commits against the base, and
// what the ticket cost so far.
func (s *Session) summary(ctx context.Context, g *gitCheck, v *verification) (string, error) {
	var b strings.Builder
	b.WriteString("**Verification**\n\n")
	if v != nil {
		fmt.Fprintf(&b, "- command: `%s` exited %d in %s\n", v.Command, v.Code, v.Duration.Round(time.Millisecond))
	} else {
		b.WriteString("- command: none (the project has no verify command)\n")
	}
	stat, err := g.git(ctx, "diff", "--shortstat", g.base+"...HEAD")
	if err != nil {
		return "", err
	}
	fmt.Fprintf(&b, "- diff against %s: %s\n", g.base, strings.TrimSpace(stat))
	commits, err := g.git(ctx, "log", "--format=%h %s", g.base+"..HEAD")
	if err != nil {
		return "", err
	}
	lines := strings.Split(commits, "\n")
	fmt.Fprintf(&b, "- commits (%d):\n", len(lines))
	for _, l := range lines {
		fmt.Fprintf(&b, "  - %s\n", l)
	}
	sp, err := s.ticketSpend(ctx)
	if err != nil {
		return "", err
	}
	fmt.Fprintf(&b, "- ticket so far: %d tokens (%d in, %d out, %d cache), %s\n",
		sp.Tokens(), sp.InputTokens, sp.OutputTokens, sp.CacheTokens(), board.USD(sp.CostUSD))
	return b.String(), nil
}

// ticketSpend adds the finished runs of the ticket and the current run.
func (s *Session) ticketSpend(ctx context.Context) (board.Usage, error) {
	runs, err := s.cfg.Board.Runs(ctx, s.cfg.Ref)
	if err != nil {
		return board.Usage{}, err
	}
	var sp board.Usage
	for _, r := range runs {
		sp = sp.Add(r.Usage)
	}
	if s.cfg.RunUsage != nil {
		sp = sp.Add(s.cfg.RunUsage())
	}
	return sp, nil
}
