package heartbeat

import (
	"context"
	"strings"
	"testing"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/policy"
)

// TestApprover asks once, blocks again on the same command while it
// waits, lets it run once a person allowed it (using the grant up), and
// tells a denial once.
func TestApprover(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	u := newUnit(t)
	run := u.startRun(t)
	a := &approver{store: u.db, ref: u.ticket.Ref(), ticketID: u.ticket.ID, runID: run.ID,
		redact: func(s string) string { return strings.ReplaceAll(s, "s3cret", "[redacted]") }, log: u.log}
	d := policy.Decision{Rule: "ask", Reason: "pushes"}

	ans := a.approve(ctx, "git push", d)
	if ans.Allow || !ans.EndRun || !a.asked() {
		t.Fatalf("first ask = %+v, asked %v; want the request posted and the run ended", ans, a.asked())
	}
	again := a.approve(ctx, "git push", d)
	if again.Allow || !again.EndRun || !strings.Contains(again.Message, "already waits") {
		t.Fatalf("second ask = %+v, want it still waiting", again)
	}
	as, err := u.db.Approvals(ctx, u.ticket.Ref())
	if err != nil || len(as) != 1 {
		t.Fatalf("approvals = %v, %v; want the one request", as, err)
	}
	if _, err := u.db.DecideApproval(ctx, u.ticket.Ref(), as[0].ID, board.ApprovalDecision{Allow: true, By: "ana"}); err != nil {
		t.Fatal(err)
	}
	if ans := a.approve(ctx, "git push", d); !ans.Allow {
		t.Fatalf("after the grant = %+v, want allowed", ans)
	}
	if ans := a.approve(ctx, "git push", d); ans.Allow {
		t.Fatalf("a once-only grant let the command run twice: %+v", ans)
	}

	if ans := a.approve(ctx, "echo s3cret", d); ans.EndRun || !strings.Contains(ans.Message, "secret of the runtime") {
		t.Fatalf("a command holding a secret = %+v, want it refused unposted", ans)
	}
}

// TestApprover_DenialToldOnce tells the agent a denial and its note once,
// then asks again.
func TestApprover_DenialToldOnce(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	u := newUnit(t)
	run := u.startRun(t)
	a := &approver{store: u.db, ref: u.ticket.Ref(), ticketID: u.ticket.ID, runID: run.ID, redact: func(s string) string { return s }, log: u.log}
	d := policy.Decision{Rule: "ask", Reason: "deletes"}
	a.approve(ctx, "rm -rf build", d)
	as, _ := u.db.Approvals(ctx, u.ticket.Ref())
	if _, err := u.db.DecideApproval(ctx, u.ticket.Ref(), as[0].ID, board.ApprovalDecision{Note: "use make clean", By: "ana"}); err != nil {
		t.Fatal(err)
	}
	denied := a.approve(ctx, "rm -rf build", d)
	if denied.Allow || denied.EndRun || !strings.Contains(denied.Message, "ana") || !strings.Contains(denied.Message, "use make clean") {
		t.Fatalf("denied = %+v, want the denial with its note, the run going on", denied)
	}
	if next := a.approve(ctx, "rm -rf build", d); !next.EndRun {
		t.Fatalf("after the denial was told = %+v, want a new request", next)
	}
}
