package heartbeat

import (
	"context"
	"fmt"
	"log/slog"
	"slices"
	"sync"

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

// approver is a run's side of the approval cycle: it answers the
// commands the policy holds for a person (Job.Approve) from the
// ticket's approvals, and asks for new ones.
type approver struct {
	store    Approvals
	ref      board.Ref
	ticketID string
	runID    string
	// policy is the run's command policy in its worktree: the grants'
	// patterns are judged by it.
	policy policy.Config
	redact func(string) string
	log    *slog.Logger

	mu sync.Mutex
	// requested reports that the run ended on an approval request.
	requested bool
}

// asked reports whether the run posted an approval request, which ends it
// blocked like a question.
func (a *approver) asked() bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.requested
}

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
func (a *approver) approve(ctx context.Context, command string, d policy.Decision) ApprovalAnswer {
	fail := func(what string, err error) ApprovalAnswer {
		a.log.Error(what, "err", err)
		return ApprovalAnswer{Message: fmt.Sprintf("This command needs a person's approval (%s), and the approval could not be checked: %v. It did not run; go on without it, or ask with ticket_ask.", d.Rule, err)}
	}
	allowed, err := a.granted(ctx, command)
	if err != nil {
		return fail("find approval", err)
	}
	if allowed {
		return ApprovalAnswer{Allow: true}
	}
	as, err := a.store.Approvals(ctx, a.ref)
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
		a.told(ctx, last.ID)
		msg := fmt.Sprintf("A person (%s) denied this command; it did not run.", orSomeone(last.DecidedBy))
		if last.Note != "" {
			msg += " Their note: " + last.Note
		}
		return ApprovalAnswer{Message: msg + "\nDo not run it again: go on without it, or ask with ticket_ask if you cannot."}
	}
	if a.redact(command) != command {
		// People read the request on the ticket; a runtime secret must
		// not be posted there, and a redacted command is not the one
		// that would run.
		a.log.Warn("approval not asked: the command holds a secret of the runtime", "rule", d.Rule)
		return ApprovalAnswer{Message: fmt.Sprintf("This command needs a person's approval (%s: %s), but it contains a secret of the runtime, so it cannot be posted on the ticket. It did not run; go on without it.", d.Rule, d.Reason)}
	}
	req, err := a.store.RequestApproval(ctx, a.ref, board.Approval{RunID: a.runID, Command: command,
		Rule: d.Rule, Reason: d.Reason, Pattern: policy.GrantPattern(command, a.policy)}, runtimeAuthor)
	if err != nil {
		if board.ErrorCode(err) == board.EINVALID {
			return ApprovalAnswer{Message: fmt.Sprintf("This command needs a person's approval (%s: %s), and it cannot be asked for: %v. It did not run.", d.Rule, d.Reason, err)}
		}
		return fail("request approval", err)
	}
	a.mu.Lock()
	a.requested = true
	a.mu.Unlock()
	a.log.Info("approval requested", "approval", req.ID, "rule", d.Rule)
	msg := fmt.Sprintf("This command needs a person's approval (%s: %s). It did not run: the request is posted on %s, which is blocked until a person decides; the next run tells you the decision.", d.Rule, d.Reason, a.ref)
	if last != nil && last.ID == req.ID {
		msg = fmt.Sprintf("This command already waits for a person's approval, asked %s; it did not run and %s stays blocked until they decide.", req.CreatedAt.UTC().Format("2006-01-02 15:04 UTC"), a.ref)
	}
	return ApprovalAnswer{Message: msg + " Stop here: this run ends.", EndRun: true}
}

// told records that the agent was told the decision on an approval; a
// failure is logged.
func (a *approver) told(ctx context.Context, id string) {
	if err := a.store.MarkApprovalsTold(ctx, a.ref, []string{id}); err != nil {
		a.log.Error("mark approval told", "err", err)
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

// maxGrants bounds how many stale once-only grants one question skips.
const maxGrants = 8

// granted reports whether a person's grant lets command run now, and
// uses it. A grant holds while it records the program the command runs
// now (policy.GrantHolds): an always-grant also when it recorded no
// pattern because its pattern was already on the project's Allow list.
// A once-only grant that no longer holds is used up, so that the next
// one, or a new question, follows; an always-grant that no longer holds
// stays, and the command is asked again (the new decision adds the
// pattern of the program it runs now).
func (a *approver) granted(ctx context.Context, command string) (bool, error) {
	cfg := a.policy
	for range maxGrants {
		g, err := a.store.GrantedApproval(ctx, a.ref, command)
		if board.ErrorCode(err) == board.ENOTFOUND {
			return false, nil
		}
		if err != nil {
			return false, err
		}
		now := policy.GrantPattern(command, cfg)
		holds := policy.GrantHolds(g.Pattern, command, cfg) ||
			(g.Always && g.Pattern == "" && now != "" && slices.Contains(cfg.Allow, now))
		if !holds && g.Always {
			a.log.Info("always-grant no longer holds: the program resolves elsewhere", "approval", g.ID, "pattern", g.Pattern)
			return false, nil
		}
		if err := a.store.UseApproval(ctx, a.ref, g.ID); err != nil {
			return false, err
		}
		if !holds {
			a.log.Info("once-only grant dropped: the program resolves elsewhere", "approval", g.ID, "pattern", g.Pattern)
			continue
		}
		if g.TicketID == a.ticketID && !g.Told {
			a.told(ctx, g.ID)
		}
		a.log.Info("command allowed by a person", "approval", g.ID, "always", g.Always)
		return true, nil
	}
	return false, nil
}

func orSomeone(name string) string {
	if name == "" {
		return "someone"
	}
	return name
}
