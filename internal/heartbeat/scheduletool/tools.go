package scheduletool

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/llm"
	"github.com/bonsai-run/bonsai/internal/schedule"
	"github.com/bonsai-run/bonsai/internal/store"
	"github.com/bonsai-run/bonsai/internal/tool"
)

// MaxAgentSchedules caps the schedules agents may have in one project.
const MaxAgentSchedules = 20

// Board is what the tools read and write.
type Board interface {
	CreateSchedule(ctx context.Context, s board.Schedule, actor board.Actor) (board.Schedule, error)
	Schedule(ctx context.Context, projectSlug, name string) (board.Schedule, error)
	ScheduleList(ctx context.Context, f store.ScheduleFilter) ([]board.Schedule, error)
	DeleteSchedule(ctx context.Context, projectSlug, name string, actor board.Actor) error
}

// Tools returns schedule_create, schedule_list and schedule_cancel for
// project slug; now is the clock.
func Tools(b Board, slug string, now func() time.Time) []tool.Tool {
	t := tools{b: b, slug: slug, now: now}
	return []tool.Tool{
		&simple{name: "schedule_create", desc: createDesc, schema: createSchema, run: t.create},
		&simple{name: "schedule_list", desc: "List this project's schedules: name, timing, next firing, status, who created it, and the last ticket each made.",
			schema: json.RawMessage(`{"type":"object","properties":{},"additionalProperties":false}`), run: t.list, readOnly: true},
		&simple{name: "schedule_cancel", desc: "Cancel (remove) a schedule an agent created in this project. Schedules people created are theirs to change.",
			schema: json.RawMessage(`{"type":"object","properties":{"name":{"type":"string","description":"the schedule's name"}},"required":["name"],"additionalProperties":false}`), run: t.cancel},
	}
}

const createDesc = `Schedule recurring or one-time work in this project: at each firing the runtime creates a ticket from the template (no model request until then), and it is picked like any other ticket. A firing is skipped while the schedule's previous ticket is not DONE.

Timing: kind "cron" with a five-field expression ("0 9 * * 1" is Mondays 09:00) or @daily, @weekly, @monthly; kind "every" with an interval ("2h", "1d"; at least 1m); kind "at" with one time ("2026-12-01 09:00"). Times are read in timezone (IANA, e.g. "Europe/Berlin"; default UTC). The title may hold {date}, {time}, {week}, {weekday}, {month}, {year}.`

var createSchema = json.RawMessage(`{"type":"object","properties":{` +
	`"name":{"type":"string","description":"lower-case letters, digits and '-', unique in the project, e.g. weekly-deps"},` +
	`"kind":{"type":"string","enum":["cron","every","at"]},` +
	`"expr":{"type":"string","description":"the cron expression, interval or time"},` +
	`"timezone":{"type":"string","description":"IANA time zone; default UTC"},` +
	`"title":{"type":"string","description":"the tickets' title; placeholders allowed"},` +
	`"description":{"type":"string","description":"the tickets' description (Markdown)"},` +
	`"criteria":{"type":"array","items":{"type":"string"},"description":"acceptance criteria"},` +
	`"priority":{"type":"integer","minimum":0,"maximum":4,"description":"0 urgent … 4 none; default 2"},` +
	`"startState":{"type":"string","enum":["BACKLOG","RESEARCH","IN_PROGRESS"],"description":"default BACKLOG"}},` +
	`"required":["name","kind","expr","title"],"additionalProperties":false}`)

type tools struct {
	b    Board
	slug string
	now  func() time.Time
}

func (t tools) create(ctx context.Context, raw json.RawMessage) (tool.Result, error) {
	var a struct {
		Name, Kind, Expr, Timezone, Title, Description, StartState string
		Criteria                                                   []string
		Priority                                                   *int
	}
	if r := decode(raw, &a); r != nil {
		return *r, nil
	}
	list, err := t.b.ScheduleList(ctx, store.ScheduleFilter{ProjectSlug: t.slug})
	if err != nil {
		return tool.Result{}, err
	}
	mine := 0
	for _, s := range list {
		if s.CreatedBy == board.Agent {
			mine++
		}
	}
	if mine >= MaxAgentSchedules {
		return tool.Errorf("this project already has %d schedules made by agents, the limit; cancel one with schedule_cancel first", mine), nil
	}
	s := board.Schedule{ProjectSlug: t.slug, Name: a.Name, Kind: a.Kind, Expr: a.Expr, TimeZone: a.Timezone, Title: a.Title,
		Description: a.Description, Criteria: a.Criteria, Priority: board.DefaultPriority, StartState: board.Backlog, Overlap: board.OverlapSkip}
	if s.TimeZone == "" {
		s.TimeZone = "UTC"
	}
	if a.Priority != nil {
		s.Priority = *a.Priority
	}
	if a.StartState != "" {
		s.StartState = board.State(a.StartState)
	}
	if err := board.ValidateScheduleName(s.Name); err != nil {
		return asResult(err)
	}
	if s, err = schedule.Prepare(s, t.now()); err != nil {
		return asResult(err)
	}
	if s, err = t.b.CreateSchedule(ctx, s, board.Agent); err != nil {
		return asResult(err)
	}
	return tool.Result{Content: []llm.Part{llm.Text(fmt.Sprintf("Schedule %s created; it first fires %s.", s.Name, when(s)))}, Details: s}, nil
}

func (t tools) list(ctx context.Context, raw json.RawMessage) (tool.Result, error) {
	var a struct{}
	if r := decode(raw, &a); r != nil {
		return *r, nil
	}
	list, err := t.b.ScheduleList(ctx, store.ScheduleFilter{ProjectSlug: t.slug})
	if err != nil {
		return tool.Result{}, err
	}
	if len(list) == 0 {
		return tool.Text("This project has no schedules."), nil
	}
	var b strings.Builder
	for _, s := range list {
		fmt.Fprintf(&b, "- %s: %s %q (%s), next %s", s.Name, s.Kind, s.Expr, s.TimeZone, when(s))
		if s.Paused {
			b.WriteString(", paused")
		}
		fmt.Fprintf(&b, ", created by %s, title %q", s.CreatedBy, s.Title)
		if s.LastTicket != 0 {
			fmt.Fprintf(&b, ", last ticket %s#%d (%s)", s.ProjectSlug, s.LastTicket, s.LastTicketState)
		}
		b.WriteString("\n")
	}
	return tool.Result{Content: []llm.Part{llm.Text(b.String())}, Details: list}, nil
}

func (t tools) cancel(ctx context.Context, raw json.RawMessage) (tool.Result, error) {
	var a struct{ Name string }
	if r := decode(raw, &a); r != nil {
		return *r, nil
	}
	s, err := t.b.Schedule(ctx, t.slug, a.Name)
	if err != nil {
		return asResult(err)
	}
	if s.CreatedBy != board.Agent {
		return tool.Errorf("schedule %s was created by a person; only a person may cancel it (ask with ticket_ask if it should go)", a.Name), nil
	}
	if err := t.b.DeleteSchedule(ctx, t.slug, a.Name, board.Agent); err != nil {
		return asResult(err)
	}
	return tool.Text("Schedule " + a.Name + " cancelled; the tickets it made stay."), nil
}

// when is a schedule's next firing in its own zone.
func when(s board.Schedule) string {
	if s.NextFire.IsZero() {
		return "never again"
	}
	t := s.NextFire
	if loc, err := schedule.LoadZone(s.TimeZone); err == nil {
		t = t.In(loc)
	}
	return t.Format("2006-01-02 15:04 MST")
}

// asResult turns a board error about the model's input into a result it
// reads; any other error is the runtime's.
func asResult(err error) (tool.Result, error) {
	switch board.ErrorCode(err) {
	case board.EINVALID, board.EREFUSED, board.ENOTFOUND, board.ECONFLICT:
		return tool.Errorf("%v", err), nil
	}
	return tool.Result{}, err
}

// decode unmarshals args into v, refusing unknown fields.
func decode(args json.RawMessage, v any) *tool.Result {
	if len(args) == 0 {
		args = json.RawMessage("{}")
	}
	dec := json.NewDecoder(strings.NewReader(string(args)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		r := tool.Errorf("invalid arguments: %v", err)
		return &r
	}
	return nil
}

// simple is a tool made of its parts.
type simple struct {
	name, desc string
	schema     json.RawMessage
	readOnly   bool
	run        func(ctx context.Context, args json.RawMessage) (tool.Result, error)
}

var (
	_ tool.Tool     = (*simple)(nil)
	_ tool.ReadOnly = (*simple)(nil)
)

// Name implements tool.Tool.
func (t *simple) Name() string { return t.name }

// Description implements tool.Tool.
func (t *simple) Description() string { return t.desc }

// Schema implements tool.Tool.
func (t *simple) Schema() json.RawMessage { return t.schema }

// ReadOnly implements tool.ReadOnly.
func (t *simple) ReadOnly() bool { return t.readOnly }

// Run implements tool.Tool.
func (t *simple) Run(ctx context.Context, args json.RawMessage, _ func(tool.Result)) (tool.Result, error) {
	return t.run(ctx, args)
}
