package text

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/termsafe"
	"github.com/bonsai-run/bonsai/internal/view"
)

// WriteTickets writes `bonsai ticket list`: a row per ticket, or "No
// tickets." for none.
func WriteTickets(w io.Writer, ts []board.Ticket, now time.Time) error {
	if len(ts) == 0 {
		fmt.Fprintln(w, "No tickets.")
		return nil
	}
	t := NewTable(w, "TICKET", "STATE", "PRIORITY", "TITLE", "UPDATED")
	for _, tk := range ts {
		t.Row(tk.Ref().String(), StateLabel(tk), board.PriorityName(tk.Priority), Truncate(tk.Title, 60), RelTime(now, tk.UpdatedAt))
	}
	return t.Flush()
}

// WriteTicket writes `bonsai ticket show`: the ticket, its project's
// permission mode when it is not auto, what a person can do next, its
// description, criteria and plan as plain text, its comments and its runs.
// Every text a person, an agent or a model wrote shows its control
// characters as escapes (termsafe): a comment cannot move the cursor to
// draw over the command a person is asked to approve.
func WriteTicket(w io.Writer, d view.TicketDetail, mode board.PermissionMode, now time.Time) error {
	t := d.Ticket.Ticket
	fmt.Fprintf(w, "%s  %s\n", d.Ref, termsafe.Line(t.Title))
	fmt.Fprintf(w, "%s · priority %s · updated %s", StateLabel(t), board.PriorityName(t.Priority), RelTime(now, t.UpdatedAt))
	if t.Branch != "" {
		fmt.Fprintf(w, " · branch %s", termsafe.Line(t.Branch))
	}
	fmt.Fprintln(w)
	if mode != board.ModeAuto {
		fmt.Fprintf(w, "Mode: %s\n", modeText(mode))
	}
	pending := PendingApprovals(d.Approvals)
	if len(pending) > 0 {
		fmt.Fprintln(w, "Next: the agent waits for your approval of a command (below): allow or deny it")
		writePending(w, d.Ref, pending)
	} else if next := NextStep(d.Ref, t); next != "" {
		fmt.Fprintf(w, "Next: %s\n", next)
	}
	for _, why := range d.NotRun {
		fmt.Fprintf(w, "Not run: %s\n", termsafe.Line(why))
	}
	writeLanding(w, d, now)
	writeLinks(w, d)
	if strings.TrimSpace(t.Description) != "" {
		fmt.Fprintf(w, "\n%s\n", Plain(t.Description))
	}
	if len(t.Criteria) > 0 {
		fmt.Fprintln(w, "\nAcceptance criteria:")
		for i, c := range t.Criteria {
			fmt.Fprintf(w, "  %d. %s\n", i+1, termsafe.Line(c))
		}
	}
	if strings.TrimSpace(t.Plan) != "" {
		fmt.Fprintf(w, "\nPlan:\n%s\n", Indent(Plain(t.Plan), "  "))
	}
	writeAttachments(w, d.Attachments)
	if len(d.Comments) > 0 {
		fmt.Fprintf(w, "\nComments (%d):\n", len(d.Comments))
		for _, c := range d.Comments {
			fmt.Fprintf(w, "\n  %s (%s) · %s · %s\n", termsafe.Line(c.AuthorName), c.AuthorType, c.Kind, RelTime(now, c.CreatedAt))
			fmt.Fprintln(w, Indent(Plain(c.Content), "  "))
		}
	}
	if len(d.Runs) > 0 {
		fmt.Fprintf(w, "\nRuns (%d):\n", len(d.Runs))
		tw := NewTable(w, "  STARTED", "TASK", "STATUS", "DURATION", "TOKENS IN/OUT", "COST")
		for _, r := range d.Runs {
			status := string(r.Status)
			if r.Progress == board.ProgressNone {
				status += " (no progress)"
			}
			tokens := fmt.Sprintf("%d/%d", r.InputTokens, r.OutputTokens)
			if r.ReasoningTokens > 0 {
				// The thinking among the output tokens.
				tokens += fmt.Sprintf(" (%d thinking)", r.ReasoningTokens)
			}
			tw.Row("  "+RelTime(now, r.StartedAt), string(r.Task), status, Duration(r.Duration()),
				tokens, board.USD(r.CostUSD))
		}
		if err := tw.Flush(); err != nil {
			return err
		}
		for _, r := range d.Runs {
			if r.Error != "" {
				fmt.Fprintf(w, "  Run %s (%s, %s): %s\n", RelTime(now, r.StartedAt), r.Task, r.Status, OneLine(r.Error, 300))
			}
		}
	}
	return nil
}

// PendingApprovals returns the approvals of as still waiting for a person.
func PendingApprovals(as []board.Approval) []board.Approval {
	var out []board.Approval
	for _, a := range as {
		if a.Status == board.ApprovalPending {
			out = append(out, a)
		}
	}
	return out
}

// writePending lists the pending approvals with the commands that answer
// them; with several, each names its --id. A command's lines are shown
// each after "$ ", its tabs and other control characters as escapes, so
// what a person approves reads as what runs.
func writePending(w io.Writer, ref string, pending []board.Approval) {
	fmt.Fprintf(w, "\nWaiting for your approval (%d):\n", len(pending))
	for _, a := range pending {
		id := ""
		if len(pending) > 1 {
			id = " --id " + a.ID
		}
		fmt.Fprintf(w, "\n%s\n", Indent(commandLines(a.Command), "    $ "))
		fmt.Fprintf(w, "  why: %s (%s)\n", termsafe.Line(a.Reason), termsafe.Line(a.Rule))
		fmt.Fprintf(w, "  allow: bonsai ticket allow %s%s [--always]\n", ref, id)
		fmt.Fprintf(w, "  deny:  bonsai ticket deny %s%s [--note TEXT]\n", ref, id)
	}
}

// commandLines is a command for a terminal: its lines kept, everything
// else a terminal would act on (tabs included) escaped.
func commandLines(cmd string) string {
	lines := strings.Split(cmd, "\n")
	for i, l := range lines {
		lines[i] = termsafe.Line(l)
	}
	return strings.Join(lines, "\n")
}

// StateLabel is the state with its sub-state, e.g. "IN_PROGRESS (blocked)".
func StateLabel(t board.Ticket) string {
	if t.SubState == board.SubNone {
		return string(t.State)
	}
	return fmt.Sprintf("%s (%s)", t.State, t.SubState)
}

// NextStep says what a person can do with the ticket now, or "" while it is
// the agent's turn.
func NextStep(ref string, t board.Ticket) string {
	switch {
	case t.SubState == board.SubBlocked && t.State == board.Research && strings.TrimSpace(t.Plan) != "":
		return fmt.Sprintf("the agent asked about its plan (see the comments); approve it with: bonsai ticket move %s IN_PROGRESS, or answer with: bonsai comment add %s TEXT", ref, ref)
	case t.SubState == board.SubBlocked:
		return fmt.Sprintf("the agent asked a question (see the comments); answer with: bonsai comment add %s TEXT", ref)
	case t.State == board.Backlog:
		return fmt.Sprintf("hand it to the agent with: bonsai ticket move %s RESEARCH (or IN_PROGRESS)", ref)
	case t.State == board.Verification:
		return fmt.Sprintf("review the work, then: bonsai ticket approve %s, or bonsai ticket return %s --feedback TEXT", ref, ref)
	}
	return ""
}

// writeLanding writes where the ticket's work is: the commit it landed
// as, the last failure to land it, or how to merge it.
func writeLanding(w io.Writer, d view.TicketDetail, now time.Time) {
	if l := d.Landing; l != nil {
		if l.PRNumber > 0 {
			checks := ""
			if l.Checks != "" {
				checks = ", checks " + string(l.Checks)
			}
			fmt.Fprintf(w, "Pull request: #%d on %s, %s%s: %s\n", l.PRNumber, l.Forge, l.PRState, termsafe.Line(checks), termsafe.Line(l.PRURL))
		}
		if l.Commit != "" {
			fmt.Fprintf(w, "Landed: %s, %s\n", termsafe.Line(l.Commit), RelTime(now, l.LandedAt))
		}
		if l.Error != "" {
			fmt.Fprintf(w, "Landing failed: %s\n", OneLine(Plain(l.Error), 400))
		}
	}
	if d.MergeHint != "" {
		fmt.Fprintf(w, "Branch: %s\n", Plain(d.MergeHint))
	}
}
