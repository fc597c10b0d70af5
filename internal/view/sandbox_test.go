package view

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/bonsai-run/bonsai/internal/board"
)

// The heartbeat records the executor's error ("the sandbox cannot start:
// …"), the status and web wrap what they read again, and the banner says
// "The sandbox cannot start" itself: the reason must say it once.
func TestSandboxBanner_SaysCannotStartOnce(t *testing.T) {
	recorded := errors.New("the sandbox cannot start: sandbox: bwrap not found on PATH; install the bubblewrap package (apt-get install bubblewrap)")
	wrapped := fmt.Errorf("%w: %w", errors.New("the sandbox cannot start"), recorded)
	ps := []board.Project{{Slug: "demo", Active: true, Agent: board.AgentSettings{Sandbox: board.SandboxRequired}}}
	sums := SandboxSummaries(ps, func() error { return wrapped })
	if got := sums[0].SandboxProblem; got != "sandbox: bwrap not found on PATH; install the bubblewrap package (apt-get install bubblewrap)" {
		t.Errorf("SandboxProblem = %q", got)
	}
	bs := Blockers(nil, sums, AgentFacts{})
	if len(bs) != 1 {
		t.Fatalf("blockers = %#v", bs)
	}
	if n := strings.Count(strings.ToLower(bs[0].Reason), "cannot start"); n != 1 {
		t.Errorf("the banner says \"cannot start\" %d times: %q", n, bs[0].Reason)
	}
	if SandboxReason(nil) != "" {
		t.Error("no error must give no reason")
	}
}
