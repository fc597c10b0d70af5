package text

import (
	"strings"
	"testing"

	"github.com/bonsai-run/bonsai/internal/board"
)

// TestApprovalDecided: each decision says what it did, held commands show
// on one escaped line, and only an allowed one says it runs next.
func TestApprovalDecided(t *testing.T) {
	t.Parallel()
	ref := board.Ref{Project: "demo", Number: 3}
	for _, c := range []struct {
		ap      board.Approval
		allowed bool
		want    string
	}{
		{board.Approval{Status: board.ApprovalDenied, Command: "rm -rf build"}, false, "Denied on demo#3: rm -rf build\nThe next heartbeat tells the agent, with your note.\n"},
		{board.Approval{Always: true, Pattern: "make *", Command: "make test"}, true, "Allowed on every ticket of demo, and added to its allow list as the program it runs now: make *\nThe next heartbeat tells the agent, and the command runs.\n"},
		{board.Approval{Always: true, Command: "a | b"}, true, "Allowed on every ticket of demo: a | b\nThe next heartbeat tells the agent, and the command runs.\n"},
		{board.Approval{Command: "echo \x1b[31mhi"}, true, "Allowed once on demo#3: echo \\x1b[31mhi\nThe next heartbeat tells the agent, and the command runs.\n"},
	} {
		if got := ApprovalDecided(ref, c.ap, c.allowed); got != c.want {
			t.Errorf("ApprovalDecided(%+v) = %q, want %q", c.ap, got, c.want)
		}
	}
	if !strings.Contains(WhoReads(board.Ticket{State: board.Done}), "no agent will read it") || WhoReads(board.Ticket{State: board.InProgress}) != "" {
		t.Error("WhoReads")
	}
}
