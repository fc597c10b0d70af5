package heartbeat

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/workspace"
)

// PushFailure is a ticket whose branch failed to push, as heartbeat.json
// keeps it until a later push of the ticket works. The work is in the
// local clone, not on the remote.
type PushFailure struct {
	Branch string `json:"branch"`
	// Failures counts the failed pushes in a row.
	Failures int       `json:"failures"`
	At       time.Time `json:"at"` // the last failure
	Error    string    `json:"error"`
}

// pusher pushes a run's branch after the run and keeps its failures.
type pusher struct {
	workspaces Workspaces
	ledger     *ledger
	notes      ticketNotes
	log        *slog.Logger
}

// push pushes the run's branch after the run. A failure is written on
// the ticket (once per failures in a row), kept in the state for `bonsai
// status` until a push works, and put in the run's report; a push that
// works, or finds nothing to push, forgets earlier failures.
func (p pusher) push(ctx context.Context, proj board.Project, ws *workspace.Workspace, rep *RunReport) {
	pushed, err := p.workspaces.Push(ctx, proj, ws)
	rep.Pushed = pushed
	if err == nil {
		p.ledger.pushWorked(rep.Ticket)
		return
	}
	p.log.Warn("push branch", "branch", ws.Branch, "err", err)
	rep.PushError = errText(err)
	f := p.ledger.pushFailed(rep.Ticket, ws.Branch, rep.PushError)
	if f.Failures == 1 {
		p.notes.note(ctx, board.KindStatus, fmt.Sprintf("The branch `%s` could not be pushed, so the remote does not have this run's work (it is kept in the local clone):\n\n%s\n\n"+
			"Each run tries again; `bonsai status` shows the failure until a push works.", ws.Branch, indented(rep.PushError)))
	}
}

// pushFailed records a failed push of ticket ref's branch.
func (l *ledger) pushFailed(ref, branch, msg string) PushFailure {
	l.mu.Lock()
	defer l.mu.Unlock()
	f := l.st.Pushes[ref]
	if f.Branch != branch {
		f = PushFailure{Branch: branch}
	}
	f.Failures++
	f.At, f.Error = l.now(), msg
	l.st.Pushes[ref] = f
	return f
}

// pushWorked forgets the failed pushes of ticket ref.
func (l *ledger) pushWorked(ref string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	delete(l.st.Pushes, ref)
}

// movedText tells the ticket that this worker moved its worktree to the
// branch another machine pushed, setting aside what the pushed branch did
// not have, and where that is kept.
func movedText(branch string, m *workspace.Moved, worker string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Another machine pushed `%s` since this one (worker `%s`) last worked this ticket, so this run starts from the pushed branch (`%.12s`), not from this machine's copy (`%.12s`).", branch, worker, m.To, m.From)
	b.WriteString(" What was set aside is kept in the project's clone on this machine only:\n")
	if m.Backup != "" {
		fmt.Fprintf(&b, "\n- the commits only this machine had: `%s` (`git log %s` lists them, `git cherry-pick` brings one back);", m.Backup, m.Backup)
	}
	if m.Leftovers != "" {
		fmt.Fprintf(&b, "\n- the uncommitted changes an earlier run left in its worktree: `%s` (`git stash show --include-untracked %s` lists them, `git stash apply %s` brings them back);", m.Leftovers, m.Leftovers, m.Leftovers)
	}
	return strings.TrimSuffix(b.String(), ";") + "."
}

// indented sets an error message apart in a comment as a code block.
func indented(msg string) string {
	return "    " + strings.ReplaceAll(strings.TrimSpace(msg), "\n", "\n    ")
}
