package heartbeat

import (
	"context"
	"fmt"
	"strings"
	"unicode"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/policy"
)

// Approvals is what the approval cycle reads and writes (docs/policy.md,
// "Approvals"): the store's approval methods.
type Approvals interface {
	RequestApproval(ctx context.Context, ref board.Ref, a board.Approval, authorName string) (board.Approval, error)
	Approvals(ctx context.Context, ref board.Ref) ([]board.Approval, error)
	GrantedApproval(ctx context.Context, ref board.Ref, command string) (board.Approval, error)
	UseApproval(ctx context.Context, ref board.Ref, id string) error
	MarkApprovalsTold(ctx context.Context, ref board.Ref, ids []string) error
}

// maxPattern is the longest command offered as an Allow pattern; the board
// refuses longer patterns.
const maxPattern = 1000

// approve is the run's Job.Approve: how a command the policy held for a
// person is handled now.
//
//   - A person allowed it (once on this ticket and not yet used, or always
//     for the project): it runs, and a once-only grant is used up.
//   - It already waits for a person: the ticket is blocked again and the
//     run ends.
//   - A person denied it and the agent was not told yet: the model reads
//     the denial and the note, and goes on without the command.
//   - Otherwise: the request is posted, the ticket blocked, the run ends.
func (r *runState) approve(ctx context.Context, command string, d policy.Decision) ApprovalAnswer {
	ref := r.plan.Ticket.Ref()
	store := r.h.opts.Store
	fail := func(what string, err error) ApprovalAnswer {
		r.log.Error(what, "err", err)
		return ApprovalAnswer{Message: fmt.Sprintf("This command needs a person's approval (%s), and the approval could not be checked: %v. It did not run; go on without it, or ask with ticket_ask.", d.Rule, err)}
	}
	g, err := store.GrantedApproval(ctx, ref, command)
	switch {
	case err == nil:
		if err := store.UseApproval(ctx, ref, g.ID); err != nil {
			return fail("use approval", err)
		}
		if g.TicketID == r.plan.Ticket.ID && !g.Told {
			r.told(ctx, g.ID)
		}
		r.log.Info("command allowed by a person", "approval", g.ID, "always", g.Always)
		return ApprovalAnswer{Allow: true}
	case board.ErrorCode(err) != board.ENOTFOUND:
		return fail("find approval", err)
	}
	as, err := store.Approvals(ctx, ref)
	if err != nil {
		return fail("list approvals", err)
	}
	var last *board.Approval
	for i := range as {
		if as[i].Command == command {
			last = &as[i]
		}
	}
	if last != nil && last.Status == board.ApprovalDenied && !last.Told {
		r.told(ctx, last.ID)
		msg := fmt.Sprintf("A person (%s) denied this command; it did not run.", orSomeone(last.DecidedBy))
		if last.Note != "" {
			msg += " Their note: " + last.Note
		}
		return ApprovalAnswer{Message: msg + "\nDo not run it again: go on without it, or ask with ticket_ask if you cannot."}
	}
	if r.h.opts.Redact(command) != command {
		// People read the request on the ticket; a runtime secret must
		// not be posted there, and a redacted command is not the one
		// that would run.
		r.log.Warn("approval not asked: the command holds a secret of the runtime", "rule", d.Rule)
		return ApprovalAnswer{Message: fmt.Sprintf("This command needs a person's approval (%s: %s), but it contains a secret of the runtime, so it cannot be posted on the ticket. It did not run; go on without it.", d.Rule, d.Reason)}
	}
	a, err := store.RequestApproval(ctx, ref, board.Approval{RunID: r.run.ID, Command: command,
		Rule: d.Rule, Reason: d.Reason, Pattern: patternOf(command)}, runtimeAuthor)
	if err != nil {
		if board.ErrorCode(err) == board.EINVALID {
			return ApprovalAnswer{Message: fmt.Sprintf("This command needs a person's approval (%s: %s), and it cannot be asked for: %v. It did not run.", d.Rule, d.Reason, err)}
		}
		return fail("request approval", err)
	}
	r.mu.Lock()
	r.requested = true
	r.mu.Unlock()
	r.log.Info("approval requested", "approval", a.ID, "rule", d.Rule)
	msg := fmt.Sprintf("This command needs a person's approval (%s: %s). It did not run: the request is posted on %s, which is blocked until a person decides; the next run tells you the decision.", d.Rule, d.Reason, ref)
	if last != nil && last.ID == a.ID {
		msg = fmt.Sprintf("This command already waits for a person's approval, asked %s; it did not run and %s stays blocked until they decide.", a.CreatedAt.UTC().Format("2006-01-02 15:04 UTC"), ref)
	}
	return ApprovalAnswer{Message: msg + " Stop here: this run ends.", EndRun: true}
}

// told records that the agent was told the decision on an approval; a
// failure is logged.
func (r *runState) told(ctx context.Context, id string) {
	if err := r.h.opts.Store.MarkApprovalsTold(ctx, r.plan.Ticket.Ref(), []string{id}); err != nil {
		r.log.Error("mark approval told", "err", err)
	}
}

// untold returns the decisions on the ticket's approvals the agent was not
// told yet.
func untold(as []board.Approval) []board.Approval {
	var out []board.Approval
	for _, a := range as {
		if a.Status != board.ApprovalPending && !a.Told {
			out = append(out, a)
		}
	}
	return out
}

// patternOf returns command as the Allow pattern that "always allow" adds
// to the project, or "" when the command is not one that matches exactly
// itself: one simple command of literal words (policy.ParsePattern: no
// assignment, no redirection), with no * (a glob in a pattern), a program
// named by its bare name (a pattern so written matches only the program
// found on PATH, named without a path, with no variables set for it and
// no redirection into a file), one line, and short enough for the board.
func patternOf(command string) string {
	if len(command) > maxPattern || strings.ContainsAny(command, "*") ||
		strings.IndexFunc(command, unicode.IsControl) >= 0 {
		return ""
	}
	if _, err := policy.ParsePattern(command); err != nil {
		return ""
	}
	if prog, _, _ := strings.Cut(strings.TrimSpace(command), " "); strings.Contains(prog, "/") {
		return ""
	}
	return command
}

func orSomeone(name string) string {
	if name == "" {
		return "someone"
	}
	return name
}
