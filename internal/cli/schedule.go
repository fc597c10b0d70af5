package cli

import (
	"context"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/schedule"
	"github.com/bonsai-run/bonsai/internal/store"
)

func newScheduleCmd(a *app) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "schedule",
		Short: "Recurring and one-shot tickets: cron, every, at, with pre-checks",
		Long: `A schedule is a ticket template that fires on time. The heartbeat fires due
schedules before it picks work (no model request): each firing creates a
ticket from the template, which the normal pick policy then gives an agent.

Times: --cron "0 9 * * 1" (five fields, or @hourly, @daily, @weekly,
@monthly, @yearly) in --timezone; --every 2h or 1d (whole days keep the wall
clock across DST) from --anchor; --at "2026-12-01 09:00" once. A time that
DST skips fires at the end of the gap; a repeated time fires once. Windows
missed while the machine was off fire once, not in a burst.

Title placeholders: ` + schedule.Placeholders + `.

--overlap skip (the default) skips a firing while the schedule's previous
ticket is not DONE; always creates another ticket anyway.

--pre-check runs a command in a checkout of the project's default branch,
in its sandbox, for at most 30 s before a firing. Its last line of output is JSON
{"wake": true|false, "data": ...}: wake false skips the firing (no ticket, no
tokens); data is appended to the ticket's description. A failure is recorded
on the schedule, retried after 30 s, 1 min, 5 min, 15 min, then hourly, and
notifies (run_failed) once per streak. See docs/schedules.md.`,
	}
	cmd.AddCommand(newScheduleAddCmd(a), newScheduleListCmd(a), newScheduleShowCmd(a), newScheduleEditCmd(a),
		newSchedulePauseCmd(a, true), newSchedulePauseCmd(a, false), newScheduleRmCmd(a), newScheduleFireCmd(a))
	return cmd
}

// scheduleFlags are the flags of add and edit.
type scheduleFlags struct {
	cron, every, at, anchor, timezone   string
	title, description, state, preCheck string
	overlap                             string
	criteria                            []string
	priority                            int
	paused, asJSON                      bool
}

func (o *scheduleFlags) register(cmd *cobra.Command) {
	f := cmd.Flags()
	f.StringVar(&o.cron, "cron", "", `a cron expression: 5 fields (minute hour day month weekday) or @daily, @weekly...`)
	f.StringVar(&o.every, "every", "", "an interval: 30m, 2h, 1d, 7d (at least 1m)")
	f.StringVar(&o.anchor, "anchor", "", `with --every: the first firing, "2026-12-01 09:00" in --timezone (default: the next minute)`)
	f.StringVar(&o.at, "at", "", `one time: "2026-12-01 09:00" in --timezone, or RFC 3339`)
	f.StringVar(&o.timezone, "timezone", "", "IANA time zone, e.g. Europe/Berlin (default: $TZ, else UTC)")
	f.StringVar(&o.title, "title", "", "the tickets' title; placeholders "+schedule.Placeholders)
	f.StringVar(&o.description, "description", "", "the tickets' description (Markdown)")
	f.StringArrayVar(&o.criteria, "criterion", nil, "an acceptance criterion (repeat for several)")
	addPriorityFlag(f, &o.priority)
	f.StringVar(&o.state, "state", "", "the tickets' starting state: BACKLOG (default), RESEARCH or IN_PROGRESS")
	f.StringVar(&o.preCheck, "pre-check", "", `a command deciding whether to fire; its last output line is {"wake": bool, "data": ...}`)
	f.StringVar(&o.overlap, "overlap", "", "skip (default: no new ticket while the previous one is not DONE) or always")
	f.BoolVar(&o.asJSON, "json", false, "print the schedule as JSON")
	cmd.MarkFlagsMutuallyExclusive("cron", "every", "at")
}

// timing returns the kind and expression the flags give, "" when none.
func (o *scheduleFlags) timing() (kind, expr string) {
	switch {
	case o.cron != "":
		return "cron", o.cron
	case o.every != "":
		return "every", o.every
	case o.at != "":
		return "at", o.at
	}
	return "", ""
}

// defaultZone is $TZ when it names an IANA zone, else UTC.
func defaultZone(a *app) string {
	if tz := strings.TrimPrefix(a.getenv("TZ"), ":"); tz != "" {
		if _, err := schedule.LoadZone(tz); err == nil {
			return tz
		}
	}
	return "UTC"
}

func newScheduleAddCmd(a *app) *cobra.Command {
	o := scheduleFlags{priority: board.DefaultPriority}
	cmd := &cobra.Command{
		Use:   "add <project> <name>",
		Short: "Add a schedule",
		Example: `  bonsai schedule add demo deps --cron "0 9 * * 1" --timezone Europe/Berlin --title "Update dependencies {date}" --state RESEARCH
  bonsai schedule add demo triage --every 1d --anchor "2026-12-01 08:00" --title "Triage {date}" \
      --pre-check 'n=$(gh issue list --json number | jq length); echo "{\"wake\": $([ $n -gt 0 ] && echo true || echo false), \"data\": $n}"'
  bonsai schedule add demo release --at "2026-12-31 17:00" --title "Cut the release" --state IN_PROGRESS`,
		Args: exactArgs("<project>", "<name>"),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runScheduleAdd(cmd.Context(), a, args[0], args[1], &o)
		},
	}
	o.register(cmd)
	cmd.Flags().BoolVar(&o.paused, "paused", false, "add it paused")
	return cmd
}

func runScheduleAdd(ctx context.Context, a *app, project, name string, o *scheduleFlags) error {
	kind, expr := o.timing()
	if kind == "" {
		return usagef(`give when it fires: --cron "0 9 * * 1", --every 1d or --at "2026-12-01 09:00"`)
	}
	if o.title == "" {
		return usagef(`give the tickets' title with --title, e.g. --title "Update dependencies {date}"`)
	}
	s := board.Schedule{ProjectSlug: project, Name: name, Kind: kind, Expr: expr, TimeZone: o.timezone,
		Title: o.title, Description: o.description, Criteria: o.criteria, Priority: o.priority,
		PreCheck: o.preCheck, Overlap: board.Overlap(o.overlap), Paused: o.paused}
	if s.TimeZone == "" {
		s.TimeZone = defaultZone(a)
	}
	if err := o.apply(&s); err != nil {
		return err
	}
	if err := board.ValidateScheduleName(name); err != nil {
		return err
	}
	s, err := schedule.Prepare(s, a.now())
	if err != nil {
		return err
	}
	st, err := a.openStore(ctx)
	if err != nil {
		return err
	}
	s, err = st.CreateSchedule(ctx, s, board.Human)
	if err != nil {
		return err
	}
	if o.asJSON {
		return writeJSON(a.stdout, s)
	}
	fmt.Fprintf(a.stdout, "Added schedule %s/%s; %s\n", s.ProjectSlug, s.Name, nextLine(s, a.now()))
	return nil
}

// apply sets the fields flags parse: state, overlap, anchor.
func (o *scheduleFlags) apply(s *board.Schedule) error {
	if o.state != "" {
		st, err := board.ParseState(o.state)
		if err != nil {
			return err
		}
		s.StartState = st
	}
	if s.StartState == "" {
		s.StartState = board.Backlog
	}
	ov, err := board.ParseOverlap(string(s.Overlap))
	if err != nil {
		return err
	}
	s.Overlap = ov
	if o.anchor != "" {
		if s.Kind != "every" {
			return usagef("--anchor goes with --every")
		}
		loc, err := schedule.LoadZone(s.TimeZone)
		if err != nil {
			return err
		}
		t, err := schedule.ParseTime(o.anchor, loc)
		if err != nil {
			return board.Errorf(board.EINVALID, `schedule anchor %q is not a time; for example "2026-12-01 09:00"`, o.anchor)
		}
		s.Anchor = t
	}
	return nil
}

func newScheduleListCmd(a *app) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:     "list [project]",
		Aliases: []string{"ls"},
		Short:   "List schedules, with when each fires next",
		Args:    cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			st, err := a.openStore(cmd.Context())
			if err != nil {
				return err
			}
			f := store.ScheduleFilter{}
			if len(args) == 1 {
				f.ProjectSlug = args[0]
			}
			ss, err := st.ScheduleList(cmd.Context(), f)
			if err != nil {
				return err
			}
			if asJSON {
				return writeJSON(a.stdout, ss)
			}
			writeSchedules(a.stdout, ss, a.now())
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}

// writeSchedules prints the schedules as a table.
func writeSchedules(w io.Writer, ss []board.Schedule, now time.Time) {
	if len(ss) == 0 {
		fmt.Fprintln(w, "No schedules. Add one with: bonsai schedule add <project> <name> --cron \"0 9 * * 1\" --title \"...\"")
		return
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "SCHEDULE\tWHEN\tNEXT\tLAST TICKET\tSTATUS")
	for _, s := range ss {
		last := "-"
		if s.LastTicket != 0 {
			last = fmt.Sprintf("%s#%d %s", s.ProjectSlug, s.LastTicket, s.LastTicketState)
		}
		fmt.Fprintf(tw, "%s/%s\t%s\t%s\t%s\t%s\n", s.ProjectSlug, s.Name, when(s), nextTime(s), last, status(s))
	}
	tw.Flush()
}

// when is the schedule's timing in words.
func when(s board.Schedule) string {
	return fmt.Sprintf("%s %s (%s)", s.Kind, s.Expr, s.TimeZone)
}

// nextTime is the next firing in the schedule's zone, "-" for none.
func nextTime(s board.Schedule) string {
	if s.NextFire.IsZero() {
		return "-"
	}
	return inZone(s.NextFire, s.TimeZone)
}

func inZone(t time.Time, zone string) string {
	if loc, err := schedule.LoadZone(zone); err == nil {
		t = t.In(loc)
	}
	return t.Format("2006-01-02 15:04 MST")
}

// status is paused, failing or active.
func status(s board.Schedule) string {
	switch {
	case s.Paused:
		return "paused"
	case s.Failures > 0:
		return fmt.Sprintf("pre-check failing (%d)", s.Failures)
	case s.NextFire.IsZero():
		return "done"
	}
	return "active"
}

// nextLine says when s fires next.
func nextLine(s board.Schedule, now time.Time) string {
	switch {
	case s.Paused:
		return "paused"
	case s.NextFire.IsZero():
		return "it will not fire again"
	}
	return fmt.Sprintf("next firing %s (in %s)", nextTime(s), until(s.NextFire.Sub(now)))
}

// until writes a wait compactly: "3d 22h", "21h 19m", "5m", "less than a
// minute".
func until(d time.Duration) string {
	d = d.Round(time.Minute)
	days, hours, mins := int(d/(24*time.Hour)), int(d%(24*time.Hour)/time.Hour), int(d%time.Hour/time.Minute)
	switch {
	case d < time.Minute:
		return "less than a minute"
	case days > 0:
		return fmt.Sprintf("%dd %dh", days, hours)
	case hours > 0 && mins > 0:
		return fmt.Sprintf("%dh %dm", hours, mins)
	case hours > 0:
		return fmt.Sprintf("%dh", hours)
	}
	return fmt.Sprintf("%dm", mins)
}

// scheduleDetail is `schedule show --json`.
type scheduleDetail struct {
	board.Schedule
	Firings []board.Firing `json:"firings"`
}

func newScheduleShowCmd(a *app) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "show <project> <name>",
		Short: "Show a schedule and its last firings",
		Args:  exactArgs("<project>", "<name>"),
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			st, err := a.openStore(ctx)
			if err != nil {
				return err
			}
			s, err := st.Schedule(ctx, args[0], args[1])
			if err != nil {
				return err
			}
			frs, err := st.Firings(ctx, args[0], args[1], 10)
			if err != nil {
				return err
			}
			if asJSON {
				return writeJSON(a.stdout, scheduleDetail{Schedule: s, Firings: frs})
			}
			writeSchedule(a.stdout, s, frs, a.now())
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}

func writeSchedule(w io.Writer, s board.Schedule, frs []board.Firing, now time.Time) {
	fmt.Fprintf(w, "%s/%s: %s\n", s.ProjectSlug, s.Name, when(s))
	fmt.Fprintf(w, "Status: %s; %s\n", status(s), nextLine(s, now))
	fmt.Fprintf(w, "Ticket: %q, %s, priority %s, overlap %s\n", s.Title, s.StartState, board.PriorityName(s.Priority), s.Overlap)
	if s.PreCheck != "" {
		fmt.Fprintf(w, "Pre-check: %s\n", s.PreCheck)
	}
	if s.LastError != "" {
		fmt.Fprintf(w, "Last error: %s\n", s.LastError)
	}
	if len(frs) == 0 {
		fmt.Fprintln(w, "No firings yet.")
		return
	}
	fmt.Fprintln(w, "Last firings:")
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	for _, f := range frs {
		what := string(f.Outcome)
		if f.Ticket != 0 {
			what += fmt.Sprintf(" %s#%d", s.ProjectSlug, f.Ticket)
		}
		fmt.Fprintf(tw, "  %s\t%s\t%s\n", inZone(f.FiredAt, s.TimeZone), what, f.Detail)
	}
	tw.Flush()
}

func newScheduleEditCmd(a *app) *cobra.Command {
	var o scheduleFlags
	cmd := &cobra.Command{
		Use:   "edit <project> <name>",
		Short: "Change a schedule; a change of timing recomputes its next firing",
		Example: `  bonsai schedule edit demo deps --cron "0 8 * * 1-5"
  bonsai schedule edit demo triage --pre-check "" --overlap always`,
		Args: exactArgs("<project>", "<name>"),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runScheduleEdit(cmd, a, args[0], args[1], &o)
		},
	}
	o.register(cmd)
	return cmd
}

func runScheduleEdit(cmd *cobra.Command, a *app, project, name string, o *scheduleFlags) error {
	ctx := cmd.Context()
	st, err := a.openStore(ctx)
	if err != nil {
		return err
	}
	old, err := st.Schedule(ctx, project, name)
	if err != nil {
		return err
	}
	s := old
	changed := cmd.Flags().Changed
	if kind, expr := o.timing(); kind != "" {
		s.Kind, s.Expr = kind, expr
	}
	set := func(flag string, dst *string, v string) {
		if changed(flag) {
			*dst = v
		}
	}
	set("timezone", &s.TimeZone, o.timezone)
	set("title", &s.Title, o.title)
	set("description", &s.Description, o.description)
	set("pre-check", &s.PreCheck, o.preCheck)
	if changed("overlap") {
		s.Overlap = board.Overlap(o.overlap)
	}
	if changed("criterion") {
		s.Criteria = o.criteria
	}
	if changed("priority") {
		s.Priority = o.priority
	}
	if err := o.apply(&s); err != nil {
		return err
	}
	p, err := schedule.Patch(old, s, a.now())
	if err != nil {
		return err
	}
	s, err = st.UpdateSchedule(ctx, project, name, p, board.Human)
	if err != nil {
		return err
	}
	if o.asJSON {
		return writeJSON(a.stdout, s)
	}
	fmt.Fprintf(a.stdout, "Updated schedule %s/%s; %s\n", s.ProjectSlug, s.Name, nextLine(s, a.now()))
	return nil
}

func newSchedulePauseCmd(a *app, pause bool) *cobra.Command {
	use, short := "pause", "Pause a schedule: it does not fire until resumed"
	if !pause {
		use, short = "resume", "Resume a paused schedule from now: missed windows fire once at most"
	}
	var asJSON bool
	cmd := &cobra.Command{
		Use:   use + " <project> <name>",
		Short: short,
		Args:  exactArgs("<project>", "<name>"),
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			st, err := a.openStore(ctx)
			if err != nil {
				return err
			}
			s, err := setPaused(ctx, st, args[0], args[1], pause, a.now())
			if err != nil {
				return err
			}
			if asJSON {
				return writeJSON(a.stdout, s)
			}
			fmt.Fprintf(a.stdout, "Schedule %s/%s: %s\n", s.ProjectSlug, s.Name, nextLine(s, a.now()))
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}

// setPaused pauses or resumes a schedule; resuming computes its next
// firing from now, so the windows it was paused for do not fire.
func setPaused(ctx context.Context, st store.Store, project, name string, pause bool, now time.Time) (board.Schedule, error) {
	if pause {
		return st.UpdateSchedule(ctx, project, name, schedule.Pause(), board.Human)
	}
	s, err := st.Schedule(ctx, project, name)
	if err != nil {
		return s, err
	}
	return st.UpdateSchedule(ctx, project, name, schedule.Resume(s, now), board.Human)
}

func newScheduleRmCmd(a *app) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "rm <project> <name>",
		Short: "Remove a schedule and its firings (the tickets it made stay)",
		Args:  exactArgs("<project>", "<name>"),
		RunE: func(cmd *cobra.Command, args []string) error {
			st, err := a.openStore(cmd.Context())
			if err != nil {
				return err
			}
			if err := st.DeleteSchedule(cmd.Context(), args[0], args[1], board.Human); err != nil {
				return err
			}
			if asJSON {
				return writeJSON(a.stdout, map[string]string{"project": args[0], "removed": args[1]})
			}
			fmt.Fprintf(a.stdout, "Removed schedule %s/%s\n", args[0], args[1])
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}

func newScheduleFireCmd(a *app) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "fire <project> <name>",
		Short: "Fire a schedule now: overlap rule, pre-check, ticket (the next beat runs the agent)",
		Long: `Fire a schedule now, as a beat would when it is due: the overlap rule and
the pre-check apply, and its ticket is created for the next heartbeat to
pick. Its next regular firing stays as it was.`,
		Args: exactArgs("<project>", "<name>"),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runScheduleFire(cmd.Context(), a, args[0], args[1], asJSON)
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}

func runScheduleFire(ctx context.Context, a *app, project, name string, asJSON bool) error {
	st, err := a.openStore(ctx)
	if err != nil {
		return err
	}
	s, err := st.Schedule(ctx, project, name)
	if err != nil {
		return err
	}
	if s.Paused {
		return board.Errorf(board.EREFUSED, "schedule %s/%s is paused; resume it first: bonsai schedule resume %s %s", project, name, project, name)
	}
	if s.NextFire.IsZero() {
		return board.Errorf(board.EREFUSED, "schedule %s/%s will not fire again (its time has passed); edit it to give it a new time", project, name)
	}
	w, err := wireHeartbeat(ctx, a, project, board.Ref{}, nil)
	if err != nil {
		return err
	}
	defer w.close()
	rep := w.hb.Fire(ctx, s)
	if asJSON {
		return writeJSON(a.stdout, rep)
	}
	switch {
	case rep.Lost:
		fmt.Fprintf(a.stdout, "%s fired already (a heartbeat was firing it)\n", rep.Schedule)
	case rep.Ticket != "":
		fmt.Fprintf(a.stdout, "%s fired: created %s\n", rep.Schedule, rep.Ticket)
	default:
		fmt.Fprintf(a.stdout, "%s fired: %s", rep.Schedule, rep.Outcome)
		if rep.Detail != "" {
			fmt.Fprintf(a.stdout, ": %s", rep.Detail)
		}
		fmt.Fprintln(a.stdout)
	}
	if rep.Outcome == board.FiringFailed {
		return fmt.Errorf("the pre-check failed: %s", rep.Detail)
	}
	return nil
}

// writeDueSchedules lists, for heartbeat --dry-run, the schedules a beat
// would fire now (of project only, when given).
func writeDueSchedules(ctx context.Context, a *app, project string) error {
	st, err := a.openStore(ctx)
	if err != nil {
		return err
	}
	due, err := st.DueSchedules(ctx, a.now())
	if err != nil {
		return err
	}
	for _, s := range due {
		if project == "" || s.ProjectSlug == project {
			fmt.Fprintf(a.stdout, "Schedule %s/%s is due (%s): a beat would fire it.\n", s.ProjectSlug, s.Name, nextTime(s))
		}
	}
	return nil
}
