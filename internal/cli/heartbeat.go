package cli

import (
	"context"
	"time"

	"github.com/spf13/cobra"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/heartbeat"
	"github.com/bonsai-run/bonsai/internal/store"
	"github.com/bonsai-run/bonsai/internal/view/text"
)

type heartbeatOptions struct {
	once, dryRun, asJSON bool
	// service marks a beat fired by the heartbeat service: its outcome is
	// recorded for 'bonsai service status'.
	service bool
	project string
	// ticket, when set, runs exactly that ticket (Run now).
	ticket string
	// report receives the beat's report, when it ran.
	report *heartbeat.Report
}

func newHeartbeatCmd(a *app) *cobra.Command {
	var o heartbeatOptions
	cmd := &cobra.Command{
		Use:   "heartbeat",
		Short: "Run one heartbeat: pick one ticket per project and run agents on them",
		Long: `Run one heartbeat and exit: take the heartbeat lock, mark runs a dead beat
left running as interrupted, pick one ticket per active project (plain SQL,
no model request when there is nothing to do), run an agent on each picked
ticket in its git worktree (projects in parallel, up to
heartbeat.maxConcurrentAgents), write the results to the board and push the
branches.

A beat that finds another beat running says so and exits 0. Cron, the
heartbeat service and 'bonsai up' fire it every heartbeat.intervalSec. It
logs to logs/heartbeat.log in the data directory.

A beat of the whole board that finds nothing to do is remembered: while
nothing writes to the board, the next beats say "Nothing to do (nothing
changed since the last beat)" without reading it, until the next schedule
firing and for at most five minutes.

--dry-run prints, per project, the ticket a beat would pick and why, and
changes nothing.`,
		Example: `  bonsai heartbeat
  bonsai heartbeat --dry-run
  bonsai heartbeat --project demo --json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if !o.service || o.dryRun {
				return runHeartbeat(cmd, a, &o)
			}
			started := a.now()
			err := runHeartbeat(cmd, a, &o)
			recordServiceBeat(a, started, o.report, err)
			return err
		},
	}
	f := cmd.Flags()
	f.BoolVar(&o.once, "once", false, "run exactly one beat and exit (what every invocation does; for explicit service units)")
	f.BoolVar(&o.dryRun, "dry-run", false, "print what a beat would pick, and change nothing")
	f.StringVar(&o.project, "project", "", "only this project (slug)")
	f.StringVar(&o.ticket, "ticket", "", "run exactly this ticket (e.g. demo#3) now, if the board rules let an agent work on it, else say why")
	f.BoolVar(&o.service, "service", false, "record the beat's outcome for 'bonsai service status' (the service units pass it)")
	f.MarkHidden("service")
	f.BoolVar(&o.asJSON, "json", false, "print JSON")
	return cmd
}

func runHeartbeat(cmd *cobra.Command, a *app, o *heartbeatOptions) error {
	ctx := cmd.Context()
	var ticket board.Ref
	if o.ticket != "" {
		var err error
		if ticket, err = board.ParseRef(o.ticket); err != nil {
			return err
		}
		if o.project != "" && o.project != ticket.Project {
			return board.Errorf(board.EINVALID, "--ticket %s is not in --project %s; give one of them", ticket, o.project)
		}
		o.project = ticket.Project
	}
	var progress func(heartbeat.Progress)
	if !o.dryRun && !o.asJSON {
		var stop func()
		progress, stop = progressOutput(a)
		defer stop()
	}
	// A board nothing wrote to since a beat that found nothing to do is
	// not read again (docs/heartbeat.md, "Idle beats").
	stamp := a.idleStamp(o)
	if rep, ok := a.unchangedBeat(stamp); ok {
		o.report = &rep
		if o.asJSON {
			return writeJSON(a.stdout, rep)
		}
		return text.WriteReport(a.stdout, rep)
	}
	var pending bool
	idle := func() string {
		if pending {
			return "" // a beat that sends notifications is not idle
		}
		return stamp
	}
	w, err := wireHeartbeat(ctx, a, o.project, ticket, progress, idle)
	if err != nil {
		return err
	}
	defer w.close()
	if o.dryRun {
		return writeDryRun(ctx, a, w, o)
	}
	rep, err := beatAndDeliver(ctx, a, w, &pending, func(rep heartbeat.Report) error {
		o.report = &rep
		if o.asJSON {
			return writeJSON(a.stdout, rep)
		}
		return text.WriteReport(a.stdout, rep)
	})
	if err != nil {
		return err
	}
	return heartbeat.TicketNotRun(ticket, rep)
}

// writeDryRun prints what a beat would pick, and the schedules it would
// fire, changing nothing.
func writeDryRun(ctx context.Context, a *app, w *wiredHeartbeat, o *heartbeatOptions) error {
	plans, err := w.hb.Plan(ctx)
	if err != nil {
		return err
	}
	if o.asJSON {
		return writeJSON(a.stdout, text.PlanViews(plans))
	}
	s, err := a.openStore(ctx)
	if err != nil {
		return err
	}
	ps, err := s.Projects(ctx, store.ProjectFilter{})
	if err != nil {
		return err
	}
	if err := text.WritePlans(a.stdout, plans, text.IdleProjects(ps, plans, o.project)); err != nil {
		return err
	}
	return writeDueSchedules(ctx, a, o.project)
}

// beatAndDeliver runs the beat and hands its report to report, delivering
// the notifications left by earlier processes while the beat works (the
// beat never waits for them) and those the beat caused after its report
// is out. *pending says whether notifications were pending before the
// beat: a beat that sends some is not idle.
func beatAndDeliver(ctx context.Context, a *app, w *wiredHeartbeat, pending *bool, report func(heartbeat.Report) error) (heartbeat.Report, error) {
	s, err := a.openStore(ctx)
	if err != nil {
		return heartbeat.Report{}, err
	}
	// A SQLite board whose WAL is empty before the first check and after
	// the beat was written by nobody in between: none pending before means
	// none pending after.
	quiet := settled(s)
	early := make(chan struct{})
	*pending = notificationsPending(ctx, s)
	if *pending {
		go func() {
			defer close(early)
			if _, err := deliverNotifications(ctx, a, s, w.log, deliverBound); err != nil {
				w.log.Error("deliver notifications", "err", err)
			}
		}()
	} else {
		close(early)
	}
	rep, err := w.hb.Beat(ctx)
	if err != nil {
		w.log.Error("beat failed", "err", err)
		<-early
		return rep, err
	}
	noteBlockers(ctx, s, rep, w.log)
	err = report(rep)
	<-early
	if (!quiet || *pending || !settled(s)) && notificationsPending(ctx, s) {
		if _, derr := deliverNotifications(ctx, a, s, w.log, deliverBound); derr != nil {
			w.log.Error("deliver notifications", "err", derr)
		}
	}
	return rep, err
}

// deliverBound caps each of a heartbeat's two delivery passes; what is
// left waits for the next process.
const deliverBound = 20 * time.Second

// progressOutput shows the beat's runs as they go (text.Progress), live
// on a terminal that takes ANSI codes.
func progressOutput(a *app) (progress func(heartbeat.Progress), stop func()) {
	if !isTerminal(a.stdout) || a.getenv("TERM") == "dumb" {
		return upProgress(a, text.ProgressLines(a.stdout))
	}
	return text.Progress(a.stdout, true)
}
