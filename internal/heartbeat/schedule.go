package heartbeat

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/executor"
	"github.com/bonsai-run/bonsai/internal/schedule"
)

// PreCheckTimeout is how long a schedule's pre-check may run.
const PreCheckTimeout = 30 * time.Second

// maxPreCheckData caps the pre-check data appended to a ticket.
const maxPreCheckData = 16 << 10

// Scheduler is what firing schedules asks of the store.
type Scheduler interface {
	DueSchedules(ctx context.Context, now time.Time) ([]board.Schedule, error)
	FireSchedule(ctx context.Context, f board.Fire) (board.Firing, error)
	FailSchedule(ctx context.Context, f board.Fire) (board.Firing, error)
}

// FireReport is what one firing did.
type FireReport struct {
	Schedule string              `json:"schedule"` // "project/name"
	Outcome  board.FiringOutcome `json:"outcome,omitempty"`
	Ticket   string              `json:"ticket,omitempty"`
	Detail   string              `json:"detail,omitempty"`
	// Lost is set when another beat fired it first: nothing was written.
	Lost bool `json:"lost,omitempty"`
}

// fireStore is what firing schedules reads and writes: the schedules and
// their firings, and a schedule's project.
type fireStore interface {
	Scheduler
	Project(ctx context.Context, slug string) (board.Project, error)
}

// firer fires schedules (docs/schedules.md).
type firer struct {
	store      fireStore
	workspaces Workspaces
	sandbox    func(board.Project) error // Options.Sandbox
	redact     func(string) string
	now        func() time.Time
	project    string // Options.Project: "" fires every project's
	log        *slog.Logger
}

// fireDue is Heartbeat.FireDue, with the error that kept it from reading
// the due schedules (logged).
func (fr firer) fireDue(ctx context.Context) ([]FireReport, error) {
	now := fr.now()
	due, err := fr.store.DueSchedules(ctx, now)
	if err != nil {
		fr.log.Error("due schedules", "err", err)
		return nil, err
	}
	var reps []FireReport
	for _, s := range due {
		if fr.project != "" && s.ProjectSlug != fr.project {
			continue
		}
		rep := fr.fire(ctx, s)
		fr.log.Info("schedule fired", "schedule", rep.Schedule, "outcome", rep.Outcome, "ticket", rep.Ticket, "detail", rep.Detail, "lost", rep.Lost)
		reps = append(reps, rep)
	}
	return reps, nil
}

// fire is Heartbeat.Fire.
func (fr firer) fire(ctx context.Context, s board.Schedule) FireReport {
	rep := FireReport{Schedule: s.ProjectSlug + "/" + s.Name}
	now := fr.now()
	sc, err := schedule.Compile(schedule.Rule{Kind: schedule.Kind(s.Kind), Expr: s.Expr, Zone: s.TimeZone, Anchor: s.Anchor})
	if err != nil {
		return fr.failFiring(ctx, s, rep, now, err.Error())
	}
	next, ok := sc.Next(now)
	if !ok {
		next = time.Time{}
	}
	f := board.Fire{ScheduleID: s.ID, DueAt: s.NextFire, Next: next}
	if s.Overlap != board.OverlapAlways && s.Overlaps() {
		prev := board.Ref{Project: s.ProjectSlug, Number: s.LastTicket}
		f.Outcome, f.Detail = board.FiringOverlap, fmt.Sprintf("%s is still %s", prev, s.LastTicketState)
		return fr.record(ctx, rep, f)
	}
	var data string
	if s.PreCheck != "" {
		wake, d, err := fr.preCheck(ctx, s)
		if err != nil {
			return fr.failFiring(ctx, s, rep, now, err.Error())
		}
		if !wake {
			f.Outcome, f.Detail = board.FiringAsleep, "the pre-check said wake: false"
			return fr.record(ctx, rep, f)
		}
		data = d
	}
	at := s.NextFire // the window this firing is for; now when fired early
	if at.IsZero() || at.After(now) {
		at = now
	}
	title, err := schedule.RenderTitle(s.Title, at, sc.Location())
	if err != nil {
		return fr.failFiring(ctx, s, rep, now, err.Error())
	}
	desc := s.Description
	if data != "" {
		desc = strings.TrimRight(desc, "\n") + "\n\n## Pre-check\n\n" + data
	}
	f.Outcome = board.FiringCreated
	f.Ticket = &board.Ticket{ProjectSlug: s.ProjectSlug, Title: title, Description: desc, Criteria: s.Criteria,
		Priority: s.Priority, State: s.StartState}
	return fr.record(ctx, rep, f)
}

// record stores a firing; losing the compare-and-set to another beat is
// not an error.
func (fr firer) record(ctx context.Context, rep FireReport, f board.Fire) FireReport {
	rep.Outcome, rep.Detail = f.Outcome, f.Detail
	firing, err := fr.store.FireSchedule(ctx, f)
	switch {
	case board.ErrorCode(err) == board.ECONFLICT:
		rep.Lost, rep.Outcome = true, ""
	case err != nil:
		rep.Outcome, rep.Detail = board.FiringFailed, fr.redact(errText(err))
	case firing.Ticket != 0:
		rep.Ticket = board.Ref{Project: f.Ticket.ProjectSlug, Number: firing.Ticket}.String()
	}
	return rep
}

// failFiring records a failed pre-check (or a schedule that cannot fire:
// a zone or title template that no longer works)
// and backs off.
func (fr firer) failFiring(ctx context.Context, s board.Schedule, rep FireReport, now time.Time, msg string) FireReport {
	msg = fr.redact(msg)
	f := board.Fire{ScheduleID: s.ID, DueAt: s.NextFire, Next: now.Add(board.PreCheckBackoff(s.Failures + 1)), Detail: msg}
	rep.Outcome, rep.Detail = board.FiringFailed, msg
	if _, err := fr.store.FailSchedule(ctx, f); board.ErrorCode(err) == board.ECONFLICT {
		rep.Lost, rep.Outcome = true, ""
	} else if err != nil {
		fr.log.Error("record pre-check failure", "schedule", rep.Schedule, "err", err)
	}
	return rep
}

// preCheck runs s's pre-check in a checkout of its project's default
// branch, through the project's executor (its sandbox), and reads the last
// line of its stdout.
func (fr firer) preCheck(ctx context.Context, s board.Schedule) (wake bool, data string, err error) {
	p, err := fr.store.Project(ctx, s.ProjectSlug)
	if err != nil {
		return false, "", err
	}
	if fr.sandbox != nil {
		if err := fr.sandbox(p); err != nil {
			return false, "", err
		}
	}
	ws, err := fr.workspaces.Checkout(ctx, p)
	if err != nil {
		return false, "", fmt.Errorf("workspace: %w", err)
	}
	defer ws.Close()
	var out, stderr bytes.Buffer
	exit, err := ws.Exec.Shell(ctx, s.PreCheck, executor.RunOptions{Output: &limited{w: &out}, Stderr: &limited{w: &stderr}, Timeout: PreCheckTimeout})
	if err != nil {
		return false, "", err
	}
	if exit.TimedOut {
		return false, "", fmt.Errorf("timed out after %s", PreCheckTimeout)
	}
	if exit.Code != 0 {
		return false, "", fmt.Errorf("exit status %d: %s", exit.Code, lastLine(stderr.String()))
	}
	return ParsePreCheck(out.String())
}

// ParsePreCheck reads a pre-check's answer from its stdout: the last
// non-empty line, a JSON object {"wake": bool, "data": …}. data, when
// present, is returned as text to append to the ticket: a string as it
// is, anything else as indented JSON in a code block.
func ParsePreCheck(stdout string) (wake bool, data string, err error) {
	line := lastLine(stdout)
	var ans struct {
		Wake *bool           `json:"wake"`
		Data json.RawMessage `json:"data"`
	}
	if err := json.Unmarshal([]byte(line), &ans); err != nil || ans.Wake == nil {
		return false, "", fmt.Errorf(`its last line of output must be JSON such as {"wake": true, "data": "3 new issues"}; got %q`, truncate(line, 200))
	}
	if len(ans.Data) > 0 && string(ans.Data) != "null" {
		var str string
		if json.Unmarshal(ans.Data, &str) == nil {
			data = str
		} else {
			var b bytes.Buffer
			json.Indent(&b, ans.Data, "", "  ")
			data = "```json\n" + b.String() + "\n```"
		}
	}
	return *ans.Wake, truncate(data, maxPreCheckData), nil
}

// lastLine returns the last non-empty line of s, trimmed.
func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return strings.TrimSpace(lines[len(lines)-1])
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

// limited keeps at most 1 MiB of a command's output, keeping the end.
type limited struct{ w *bytes.Buffer }

func (l *limited) Write(b []byte) (int, error) {
	const max = 1 << 20
	l.w.Write(b)
	if l.w.Len() > max {
		rest := append([]byte(nil), l.w.Bytes()[l.w.Len()-max/2:]...)
		l.w.Reset()
		l.w.Write(rest)
	}
	return len(b), nil
}
