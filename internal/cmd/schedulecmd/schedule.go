// Package schedulecmd holds `bonsai schedule`: schedules added, listed,
// shown, edited, paused, resumed, removed and fired now.
package schedulecmd

import (
	"context"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/cmd/cmdkit"
	"github.com/bonsai-run/bonsai/internal/schedule"
	"github.com/bonsai-run/bonsai/internal/view/text"
)

// NewCmd returns `bonsai schedule` and its subcommands; fire fires a
// schedule now, as a beat would.
func NewCmd(a *cmdkit.App, fire Firer) *cobra.Command {
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
		newSchedulePauseCmd(a, true), newSchedulePauseCmd(a, false), newScheduleRmCmd(a), newScheduleFireCmd(a, fire))
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
	cmdkit.AddPriorityFlag(f, &o.priority)
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
func defaultZone(a *cmdkit.App) string {
	if tz := strings.TrimPrefix(a.Getenv("TZ"), ":"); tz != "" {
		if _, err := schedule.LoadZone(tz); err == nil {
			return tz
		}
	}
	return "UTC"
}

func newScheduleAddCmd(a *cmdkit.App) *cobra.Command {
	o := scheduleFlags{priority: board.DefaultPriority}
	cmd := &cobra.Command{
		Use:   "add <project> <name>",
		Short: "Add a schedule",
		Example: `  bonsai schedule add demo deps --cron "0 9 * * 1" --timezone Europe/Berlin --title "Update dependencies {date}" --state RESEARCH
  bonsai schedule add demo triage --every 1d --anchor "2026-12-01 08:00" --title "Triage {date}" \
      --pre-check 'n=$(gh issue list --json number | jq length); echo "{\"wake\": $([ $n -gt 0 ] && echo true || echo false), \"data\": $n}"'
  bonsai schedule add demo release --at "2026-12-31 17:00" --title "Cut the release" --state IN_PROGRESS`,
		Args: cmdkit.ExactArgs("<project>", "<name>"),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runScheduleAdd(cmd.Context(), a, args[0], args[1], &o)
		},
	}
	o.register(cmd)
	cmd.Flags().BoolVar(&o.paused, "paused", false, "add it paused")
	return cmd
}

func runScheduleAdd(ctx context.Context, a *cmdkit.App, project, name string, o *scheduleFlags) error {
	kind, expr := o.timing()
	if kind == "" {
		return cmdkit.Usagef(`give when it fires: --cron "0 9 * * 1", --every 1d or --at "2026-12-01 09:00"`)
	}
	if o.title == "" {
		return cmdkit.Usagef(`give the tickets' title with --title, e.g. --title "Update dependencies {date}"`)
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
	s, err := schedule.Prepare(s, a.Now())
	if err != nil {
		return err
	}
	st, err := a.OpenStore(ctx)
	if err != nil {
		return err
	}
	s, err = st.CreateSchedule(ctx, s, board.Human)
	if err != nil {
		return err
	}
	if o.asJSON {
		return cmdkit.WriteJSON(a.Stdout, s)
	}
	fmt.Fprintf(a.Stdout, "Added schedule %s/%s; %s\n", s.ProjectSlug, s.Name, text.NextLine(s, a.Now()))
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
			return cmdkit.Usagef("--anchor goes with --every")
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

func newScheduleEditCmd(a *cmdkit.App) *cobra.Command {
	var o scheduleFlags
	cmd := &cobra.Command{
		Use:   "edit <project> <name>",
		Short: "Change a schedule; a change of timing recomputes its next firing",
		Example: `  bonsai schedule edit demo deps --cron "0 8 * * 1-5"
  bonsai schedule edit demo triage --pre-check "" --overlap always`,
		Args: cmdkit.ExactArgs("<project>", "<name>"),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runScheduleEdit(cmd, a, args[0], args[1], &o)
		},
	}
	o.register(cmd)
	return cmd
}

func runScheduleEdit(cmd *cobra.Command, a *cmdkit.App, project, name string, o *scheduleFlags) error {
	ctx := cmd.Context()
	st, err := a.OpenStore(ctx)
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
	p, err := schedule.Patch(old, s, a.Now())
	if err != nil {
		return err
	}
	s, err = st.UpdateSchedule(ctx, project, name, p, board.Human)
	if err != nil {
		return err
	}
	if o.asJSON {
		return cmdkit.WriteJSON(a.Stdout, s)
	}
	fmt.Fprintf(a.Stdout, "Updated schedule %s/%s; %s\n", s.ProjectSlug, s.Name, text.NextLine(s, a.Now()))
	return nil
}
