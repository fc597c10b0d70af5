package heartbeat_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/heartbeat"
	"github.com/bonsai-run/bonsai/internal/policy"
)

// approve asks the job about command as the command gate does: it judges
// the command with the job's policy and calls Approve on an "ask".
func approve(t *testing.T, ctx context.Context, job heartbeat.Job, command string) (policy.Decision, heartbeat.ApprovalAnswer) {
	t.Helper()
	d := policy.Judge(command, job.Policy)
	if d.Verdict != policy.Ask {
		return d, heartbeat.ApprovalAnswer{Allow: d.Verdict == policy.Allow}
	}
	if job.Approve == nil {
		t.Fatal("the job has no Approve")
	}
	return d, job.Approve(ctx, command, d)
}

func (e *env) approvals(ref board.Ref) []board.Approval {
	e.t.Helper()
	as, err := e.db.Approvals(context.Background(), ref)
	if err != nil {
		e.t.Fatal(err)
	}
	return as
}

func (e *env) decide(ref board.Ref, id string, d board.ApprovalDecision) {
	e.t.Helper()
	if _, err := e.db.DecideApproval(context.Background(), ref, id, d); err != nil {
		e.t.Fatal(err)
	}
}

// TestBeat_ApprovalCycle: ask → blocked → allowed always → the next run is
// told and the command runs → later the identical command runs without
// asking, on another ticket too.
func TestBeat_ApprovalCycle(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.project("demo", func(p *board.Project) { p.Agent.PermissionMode = board.ModeAsk })
	tk := e.ticket("demo", "Touch a file", board.InProgress)
	const cmd = "touch approved.txt"
	var answer heartbeat.ApprovalAnswer
	e.runner.run = func(ctx context.Context, job heartbeat.Job) (heartbeat.Outcome, error) {
		_, answer = approve(t, ctx, job, cmd)
		return heartbeat.Outcome{Status: board.RunCompleted}, nil
	}
	rep := e.beat()
	if answer.Allow || !answer.EndRun || !strings.Contains(answer.Message, "approval") {
		t.Fatalf("first answer = %+v, want the run ended on a request", answer)
	}
	if rep.Runs[0].Status != board.RunBlocked || e.get(tk.Ref()).SubState != board.SubBlocked {
		t.Fatalf("after the request: run %+v, sub-state %q; want blocked", rep.Runs[0], e.get(tk.Ref()).SubState)
	}
	cs := e.comments(tk.Ref())
	if len(cs) != 1 || cs[0].Kind != board.KindPermission || !strings.Contains(cs[0].Content, cmd) || !strings.Contains(cs[0].Content, "ask-mode") {
		t.Fatalf("comments after the request = %+v, want only the permission request naming the command and the rule", cs)
	}
	as := e.approvals(tk.Ref())
	if len(as) != 1 || as[0].Pattern != cmd || as[0].RunID != rep.Runs[0].RunID {
		t.Fatalf("approvals = %+v, want one with its pattern and run", as)
	}
	if rep := e.beat(); len(rep.Runs) != 0 {
		t.Fatalf("a ticket waiting for approval was picked: %+v", rep.Runs)
	}

	e.decide(tk.Ref(), as[0].ID, board.ApprovalDecision{Allow: true, Always: true, By: "alice"})
	var decisions []board.Approval
	e.runner.run = func(ctx context.Context, job heartbeat.Job) (heartbeat.Outcome, error) {
		decisions = job.Decisions
		_, answer = approve(t, ctx, job, cmd)
		call(t, ctx, job, "ticket_comment", map[string]string{"kind": "status", "content": "Touched it."})
		return heartbeat.Outcome{Status: board.RunCompleted}, nil
	}
	rep = e.beat()
	jobs := e.runner.calls()
	last := jobs[len(jobs)-1]
	if len(decisions) != 1 || decisions[0].ID != as[0].ID {
		t.Errorf("decisions in the brief = %+v, want the allowed approval", decisions)
	}
	if !strings.Contains(last.Prompt, "allowed `touch approved.txt` (always") || !strings.Contains(last.Prompt, "run it now") {
		t.Errorf("the task prompt does not tell the decision:\n%s", last.Prompt)
	}
	if !answer.Allow {
		t.Errorf("answer after always-allow = %+v, want allowed", answer)
	}
	if !slices.Contains(last.Policy.Allow, cmd) {
		t.Errorf("the job's policy Allow = %q, want the always-allowed command", last.Policy.Allow)
	}
	if rep.Runs[0].Status != board.RunCompleted {
		t.Errorf("run after the decision = %+v, want completed", rep.Runs[0])
	}
	if as := e.approvals(tk.Ref()); !as[0].Told {
		t.Errorf("approval after the run = %+v, want told", as[0])
	}

	// A later ticket: the identical command runs without a request; a
	// command no pattern expresses is granted by the approval itself.
	if _, err := e.db.MoveTicket(context.Background(), tk.Ref(), board.MoveRequest{To: board.Backlog, Actor: board.Human}, "alice"); err != nil {
		t.Fatal(err)
	}
	other := e.ticket("demo", "Again", board.InProgress)
	const piped = "make build | tee build.log"
	e.runner.run = func(ctx context.Context, job heartbeat.Job) (heartbeat.Outcome, error) {
		decisions = job.Decisions
		_, answer = approve(t, ctx, job, cmd)
		if !answer.Allow {
			t.Errorf("answer on another ticket = %+v, want allowed", answer)
		}
		_, answer = approve(t, ctx, job, piped)
		return heartbeat.Outcome{Status: board.RunCompleted}, nil
	}
	e.beat()
	if len(decisions) != 0 {
		t.Errorf("another ticket's brief carries decisions %+v", decisions)
	}
	pa := e.approvals(other.Ref())
	if len(pa) != 1 || pa[0].Command != piped || pa[0].Pattern != "" {
		t.Fatalf("approvals of the other ticket = %+v, want the piped command without a pattern", pa)
	}
	e.decide(other.Ref(), pa[0].ID, board.ApprovalDecision{Allow: true, Always: true, By: "alice"})
	third := e.ticket("demo", "Third", board.InProgress)
	e.runner.run = func(ctx context.Context, job heartbeat.Job) (heartbeat.Outcome, error) {
		if job.Ticket.ID == third.ID {
			_, answer = approve(t, ctx, job, piped)
		}
		call(t, ctx, job, "ticket_comment", map[string]string{"kind": "status", "content": "Read it."})
		return heartbeat.Outcome{Status: board.RunCompleted}, nil
	}
	e.beat() // the other ticket, for the decision
	e.beat() // the third
	if !answer.Allow || len(e.approvals(third.Ref())) != 0 {
		t.Errorf("answer on the third ticket = %+v, approvals %+v; want allowed without a request", answer, e.approvals(third.Ref()))
	}
}

// TestBeat_ApprovalOnceAndDeny: a once-grant runs once; a denial reaches
// the next run with the note and the command does not run; asking again
// after that is a new request.
func TestBeat_ApprovalOnceAndDeny(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.project("demo", func(p *board.Project) { p.Agent.PermissionMode = board.ModeAsk })
	tk := e.ticket("demo", "Clean up", board.InProgress)
	const once, denied = "make install", "rm -r vendor"
	var answers []heartbeat.ApprovalAnswer
	run := func(cmds ...string) {
		t.Helper()
		answers = nil
		e.runner.run = func(ctx context.Context, job heartbeat.Job) (heartbeat.Outcome, error) {
			for _, c := range cmds {
				_, a := approve(t, ctx, job, c)
				answers = append(answers, a)
				if a.EndRun {
					break
				}
			}
			call(t, ctx, job, "ticket_comment", map[string]string{"kind": "status", "content": "Worked."})
			return heartbeat.Outcome{Status: board.RunCompleted}, nil
		}
		e.beat()
	}
	run(once)
	e.decide(tk.Ref(), e.approvals(tk.Ref())[0].ID, board.ApprovalDecision{Allow: true, By: "alice"})
	run(once, once)
	if len(answers) != 2 || !answers[0].Allow || answers[1].Allow || !answers[1].EndRun {
		t.Fatalf("answers after allow once = %+v, want allowed, then a new request", answers)
	}
	if as := e.approvals(tk.Ref()); len(as) != 2 || !as[0].Used || as[1].Status != board.ApprovalPending {
		t.Fatalf("approvals = %+v, want the used one and a new pending one", as)
	}
	if p, _ := e.db.Project(context.Background(), "demo"); len(p.Agent.Allow) != 0 {
		t.Errorf("allow once changed the Allow list: %q", p.Agent.Allow)
	}

	e.decide(tk.Ref(), e.approvals(tk.Ref())[1].ID, board.ApprovalDecision{Allow: false, By: "alice"})
	run(denied)
	as := e.approvals(tk.Ref())
	e.decide(tk.Ref(), as[2].ID, board.ApprovalDecision{Note: "keep vendor/; run go mod tidy instead", By: "alice"})
	run(denied)
	jobs := e.runner.calls()
	last := jobs[len(jobs)-1]
	if !strings.Contains(last.Prompt, "denied `rm -r vendor`") || !strings.Contains(last.Prompt, "keep vendor/; run go mod tidy instead") {
		t.Errorf("the task prompt does not tell the denial and its note:\n%s", last.Prompt)
	}
	if len(answers) != 1 || answers[0].Allow || answers[0].EndRun || !strings.Contains(answers[0].Message, "go mod tidy") {
		t.Fatalf("answer after the denial = %+v, want the note without ending the run", answers)
	}
	if e.get(tk.Ref()).SubState == board.SubBlocked {
		t.Error("a denial told to the agent blocked the ticket")
	}
	run(denied)
	if len(answers) != 1 || !answers[0].EndRun || len(e.approvals(tk.Ref())) != 4 {
		t.Errorf("asking again after a told denial: %+v, %d approvals; want a new request", answers, len(e.approvals(tk.Ref())))
	}
}

// TestBeat_PendingApprovalIsAskedOnce: a person's plain comment unblocks a
// ticket whose command still waits; calling it again blocks the ticket
// again without a second request.
func TestBeat_PendingApprovalIsAskedOnce(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.project("demo", func(p *board.Project) { p.Agent.PermissionMode = board.ModeAsk })
	tk := e.ticket("demo", "Deploy", board.InProgress)
	var answer heartbeat.ApprovalAnswer
	e.runner.run = func(ctx context.Context, job heartbeat.Job) (heartbeat.Outcome, error) {
		_, answer = approve(t, ctx, job, "make deploy")
		return heartbeat.Outcome{Status: board.RunCompleted}, nil
	}
	e.beat()
	e.humanComment(tk.Ref(), "Why deploy?")
	rep := e.beat()
	if !answer.EndRun || !strings.Contains(answer.Message, "already waits") {
		t.Errorf("answer for a pending command = %+v", answer)
	}
	if rep.Runs[0].Status != board.RunBlocked || e.get(tk.Ref()).SubState != board.SubBlocked || len(e.approvals(tk.Ref())) != 1 {
		t.Errorf("run %+v, sub-state %q, %d approvals; want blocked again with one approval",
			rep.Runs[0], e.get(tk.Ref()).SubState, len(e.approvals(tk.Ref())))
	}
}

// TestBeat_ApprovalNeverPostsASecret: a held command holding a secret of
// the runtime is refused, not posted on the ticket for people to read.
func TestBeat_ApprovalNeverPostsASecret(t *testing.T) {
	t.Parallel()
	const secret = "sk-secret-0123456789"
	e := newEnv(t)
	e.opts.Redact = func(s string) string { return strings.ReplaceAll(s, secret, "[redacted]") }
	e.project("demo", func(p *board.Project) { p.Agent.PermissionMode = board.ModeAsk })
	tk := e.ticket("demo", "Call the API", board.InProgress)
	var answer heartbeat.ApprovalAnswer
	e.runner.run = func(ctx context.Context, job heartbeat.Job) (heartbeat.Outcome, error) {
		_, answer = approve(t, ctx, job, "curl -H 'Authorization: Bearer "+secret+"' https://api.example.com")
		return heartbeat.Outcome{Status: board.RunCompleted}, nil
	}
	e.beat()
	if answer.Allow || answer.EndRun || !strings.Contains(answer.Message, "contains a secret") {
		t.Fatalf("answer = %+v, want a refusal naming the secret", answer)
	}
	if as := e.approvals(tk.Ref()); len(as) != 0 {
		t.Fatalf("approvals = %+v, want none", as)
	}
	for _, c := range e.comments(tk.Ref()) {
		if strings.Contains(c.Content, secret) {
			t.Fatalf("comment %q holds the secret", c.Content)
		}
	}
}

// TestBeat_AlwaysGrantCoversOnlyItself: after a person always-allowed
// `make test`, a committed ./make, a changed PATH, MAKEFLAGS or LD_PRELOAD
// and an appending redirection each need a new approval (issue 25, finding
// 4), while `make test` itself runs without one.
func TestBeat_AlwaysGrantCoversOnlyItself(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.project("demo", func(p *board.Project) { p.Agent.PermissionMode = board.ModeAsk })
	tk := e.ticket("demo", "Test it", board.InProgress)
	const cmd = "make test"
	e.runner.run = func(ctx context.Context, job heartbeat.Job) (heartbeat.Outcome, error) {
		approve(t, ctx, job, cmd)
		return heartbeat.Outcome{Status: board.RunCompleted}, nil
	}
	e.beat()
	as := e.approvals(tk.Ref())
	if len(as) != 1 || as[0].Pattern != cmd {
		t.Fatalf("approvals = %+v, want one for %q with its pattern", as, cmd)
	}
	e.decide(tk.Ref(), as[0].ID, board.ApprovalDecision{Allow: true, Always: true, By: "alice"})

	attacks := []string{
		"./make test",
		"PATH=.:$PATH make test",
		"MAKEFLAGS='--eval=$(shell touch pwned)' make test",
		"LD_PRELOAD=./evil.so make test",
		"make test >> ~/.bashrc",
	}
	type result struct {
		d      policy.Decision
		answer heartbeat.ApprovalAnswer
	}
	var granted heartbeat.ApprovalAnswer
	var got []result
	e.runner.run = func(ctx context.Context, job heartbeat.Job) (heartbeat.Outcome, error) {
		_, granted = approve(t, ctx, job, cmd)
		for _, a := range attacks {
			d, ans := approve(t, ctx, job, a)
			got = append(got, result{d, ans})
		}
		return heartbeat.Outcome{Status: board.RunCompleted}, nil
	}
	e.beat()
	if !granted.Allow {
		t.Errorf("the always-allowed %q: %+v, want allowed", cmd, granted)
	}
	if len(got) != len(attacks) {
		t.Fatalf("%d answers for %d commands", len(got), len(attacks))
	}
	for i, r := range got {
		if r.answer.Allow || r.d.Verdict != policy.Ask {
			t.Errorf("%q after always-allowing %q: %s, answer %+v; want a new approval", attacks[i], cmd, r.d, r.answer)
		}
	}
	asked := map[string]bool{}
	for _, a := range e.approvals(tk.Ref()) {
		asked[a.Command] = true
	}
	for _, a := range attacks {
		if !asked[a] {
			t.Errorf("no approval request for %q", a)
		}
	}
}
