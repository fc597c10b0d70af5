package text

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/view"
)

// TestNextStep_PlanAwaitingApproval: a researched ticket whose agent asked
// about its plan says how to approve it, as well as how to answer.
func TestNextStep_PlanAwaitingApproval(t *testing.T) {
	t.Parallel()
	got := NextStep("demo#3", board.Ticket{State: board.Research, SubState: board.SubBlocked, Plan: "1. Do it."})
	if !strings.Contains(got, "approve it with: bonsai ticket move demo#3 IN_PROGRESS") || !strings.Contains(got, "bonsai comment add demo#3 TEXT") {
		t.Errorf("NextStep = %q", got)
	}
	if got := NextStep("demo#3", board.Ticket{State: board.Research, SubState: board.SubBlocked}); strings.Contains(got, "approve") {
		t.Errorf("without a plan: %q", got)
	}
}

// TestWriteTicket: the description, plan and comments read as plain text,
// the plan and comments indented under their headings, and the next step
// is named.
func TestWriteTicket(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	tk := board.Ticket{ProjectSlug: "demo", Number: 3, Title: "Add **flags**", State: board.Verification, Priority: 1,
		Description: "Users want **progress**.", Criteria: []string{"it prints"}, Plan: "1. Do _it_.\n2. Test.", Branch: "bonsai/demo-3",
		UpdatedAt: now.Add(-2 * time.Hour)}
	comments := []board.Comment{{AuthorName: "ann", AuthorType: board.Human, Kind: board.KindNote, Content: "Looks *good*.", CreatedAt: now}}
	runs := []board.Run{{Task: board.TaskImplement, Status: board.RunCompleted, StartedAt: now.Add(-time.Hour), Progress: board.ProgressNone}}
	var b bytes.Buffer
	if err := WriteTicket(&b, view.NewTicketDetail(tk, comments, runs), board.ModeAuto, now); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(b.String(), "Mode:") {
		t.Errorf("an auto project's ticket shows its mode:\n%s", b.String())
	}
	b.Reset()
	if err := WriteTicket(&b, view.NewTicketDetail(tk, comments, runs), board.ModeReadOnly, now); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{
		"demo#3  Add **flags**\n",
		"VERIFICATION · priority high · updated 2 hours ago · branch bonsai/demo-3\nMode: read-only: agents research and plan; they change nothing\n",
		"Next: review the work, then: bonsai ticket approve demo#3",
		"\nUsers want progress.\n",
		"Acceptance criteria:\n  1. it prints\n",
		"Plan:\n  1. Do it.\n  2. Test.\n",
		"Comments (1):\n\n  ann (human) · note · just now\n  Looks good.\n",
		"Runs (1):\n  STARTED",
		"implement  completed (no progress)",
		"1 hour ago",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("ticket lacks %q:\n%s", want, out)
		}
	}
}

func TestWriteTickets(t *testing.T) {
	t.Parallel()
	var b bytes.Buffer
	if err := WriteTickets(&b, nil, time.Now()); err != nil || b.String() != "No tickets.\n" {
		t.Errorf("no tickets = %q, %v", b.String(), err)
	}
	b.Reset()
	ts := []board.Ticket{{ProjectSlug: "demo", Number: 1, Title: "One", State: board.InProgress, SubState: board.SubBlocked, Priority: 2}}
	if err := WriteTickets(&b, ts, time.Now()); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "demo#1  IN_PROGRESS (blocked)  medium") {
		t.Errorf("tickets =\n%s", b.String())
	}
}

// TestWriteTicket_PendingApprovals: pending approvals replace the next
// step with the command, why, and the commands that answer; with several
// each names its --id; decided ones are not listed.
func TestWriteTicket_PendingApprovals(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	tk := board.Ticket{ProjectSlug: "demo", Number: 3, Title: "T", State: board.InProgress, SubState: board.SubBlocked}
	d := view.NewTicketDetail(tk, nil, nil)
	d.Approvals = []board.Approval{
		{ID: "a1", Command: "make deploy", Status: board.ApprovalAllowed, Rule: "ask-mode", Reason: "asks"},
		{ID: "a2", Command: "touch x\ntouch y", Status: board.ApprovalPending, Rule: "ask-mode", Reason: "not on the allow list"},
	}
	var b bytes.Buffer
	if err := WriteTicket(&b, d, board.ModeAsk, now); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{
		"Next: the agent waits for your approval of a command (below): allow or deny it\n",
		"Waiting for your approval (1):\n\n    $ touch x\n    $ touch y\n  why: not on the allow list (ask-mode)\n" +
			"  allow: bonsai ticket allow demo#3 [--always]\n  deny:  bonsai ticket deny demo#3 [--note TEXT]\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("ticket lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "make deploy") || strings.Contains(out, "answer with: bonsai comment add") {
		t.Errorf("a decided approval or the question's next step is shown:\n%s", out)
	}
	d.Approvals[0].Status = board.ApprovalPending
	b.Reset()
	WriteTicket(&b, d, board.ModeAsk, now)
	if out := b.String(); !strings.Contains(out, "allow: bonsai ticket allow demo#3 --id a1 [--always]") ||
		!strings.Contains(out, "deny:  bonsai ticket deny demo#3 --id a2 [--note TEXT]") {
		t.Errorf("several pending approvals without their ids:\n%s", out)
	}
}

// TestWriteTicket_NotRunAndRunErrors: why no agent runs on the ticket,
// and each failed run's error, are on the page.
func TestWriteTicket_NotRunAndRunErrors(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	tk := board.Ticket{ProjectSlug: "demo", Number: 3, Title: "Add flags", State: board.Research, UpdatedAt: now}
	runs := []board.Run{{Task: board.TaskResearch, Status: board.RunError, StartedAt: now.Add(-time.Hour), Error: "anthropic: overloaded\nretry later"}}
	d := view.NewTicketDetail(tk, nil, runs)
	d.NotRun = []string{"the last beat did not run it: provider anthropic is paused"}
	var b bytes.Buffer
	if err := WriteTicket(&b, d, board.ModeAuto, now); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"Not run: the last beat did not run it: provider anthropic is paused\n",
		"  Run 1 hour ago (research, error): anthropic: overloaded retry later\n"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("missing %q in:\n%s", want, b.String())
		}
	}
}

// TestWriteTicket_PullRequest: a ticket's pull request is shown with its
// number, forge, state, checks and link; --json carries the same fields
// and never the ETag or the review cursor.
func TestWriteTicket_PullRequest(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	tk := board.Ticket{ProjectSlug: "demo", Number: 3, Title: "Add flags", State: board.Verification, Branch: "bonsai/3-add-flags", UpdatedAt: now}
	d := view.NewTicketDetail(tk, nil, nil)
	p := board.Project{Slug: "demo", Repo: "https://github.com/acme/widget", DefaultBranch: "main", Agent: board.AgentSettings{Land: board.LandPR}}
	l := board.Landing{Ref: tk.Ref(), Mode: board.LandPR, Branch: tk.Branch, Forge: "github", PRNumber: 7, PRURL: "https://github.com/acme/widget/pull/7",
		PRState: board.PROpen, Checks: board.ChecksFailure, ETag: `W/"secret-etag"`, ReviewCursor: "r=4"}
	d.SetLanding(p, &l)
	var b bytes.Buffer
	if err := WriteTicket(&b, d, board.ModeAuto, now); err != nil {
		t.Fatal(err)
	}
	if want := "Pull request: #7 on github, open, checks failure: https://github.com/acme/widget/pull/7\n"; !strings.Contains(b.String(), want) {
		t.Errorf("ticket lacks %q:\n%s", want, b.String())
	}
	js, _ := json.Marshal(d)
	for _, want := range []string{`"prNumber":7`, `"prUrl":"https://github.com/acme/widget/pull/7"`, `"prState":"open"`, `"checks":"failure"`, `"forge":"github"`} {
		if !strings.Contains(string(js), want) {
			t.Errorf("--json lacks %s: %s", want, js)
		}
	}
	if strings.Contains(string(js), "secret-etag") || strings.Contains(string(js), "r=4") {
		t.Errorf("--json shows the ETag or cursor: %s", js)
	}
}
