package heartbeat

import (
	"time"

	"github.com/bonsai-run/bonsai/internal/board"
)

// The waits of a worker after a beat shorter than the interval: a second
// after a beat in which an agent completed a run (the board likely holds
// the ticket's next step, or more tickets of its project), five after one
// whose tickets waited for leases other workers hold (their runs end
// soon). Never zero, so a busy board costs at most a beat a second in
// beats that find nothing.
const (
	workerFollowUp   = time.Second
	workerLeasedWait = 5 * time.Second
)

// NextBeat is how long a worker (`bonsai worker`) waits after a beat that
// reported rep (nil: the beat failed) before the next one, at most
// interval.
func NextBeat(rep *Report, interval time.Duration) time.Duration {
	wait := interval
	if rep == nil || rep.Skipped {
		return wait
	}
	for _, r := range rep.Runs {
		switch {
		case r.Status == board.RunCompleted:
			return min(interval, workerFollowUp)
		case r.Leased:
			wait = min(wait, workerLeasedWait)
		}
	}
	return wait
}

// TicketNotRun says why a beat for one ticket (Options.Ticket) ran no
// agent on it: another beat holds the lock, or the ticket was skipped;
// nil when it ran, or when the beat was not for one ticket.
func TicketNotRun(ticket board.Ref, rep Report) error {
	if ticket.Number == 0 {
		return nil
	}
	if rep.Skipped {
		return board.Errorf(board.EREFUSED, "another heartbeat (pid %d) is running; %s was not started. Try again when it ends; the next beat also picks %s if it is its project's pick", rep.HolderPID, ticket, ticket)
	}
	for _, r := range rep.Runs {
		if r.Skipped != "" {
			return board.Errorf(board.EREFUSED, "%s was not run: %s", ticket, r.Skipped)
		}
	}
	return nil
}
