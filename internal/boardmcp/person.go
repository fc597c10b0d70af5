package boardmcp

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/store"
	"github.com/bonsai-run/bonsai/internal/tool"
	"github.com/bonsai-run/bonsai/internal/view"
)

// Board is what a person's board tools read and write: a subset of
// store.Store.
type Board interface {
	Projects(ctx context.Context, f store.ProjectFilter) ([]board.Project, error)
	Project(ctx context.Context, slug string) (board.Project, error)
	Tickets(ctx context.Context, f store.TicketFilter) ([]board.Ticket, error)
	Ticket(ctx context.Context, ref board.Ref) (board.Ticket, error)
	Comments(ctx context.Context, ref board.Ref) ([]board.Comment, error)
	Runs(ctx context.Context, ref board.Ref) ([]board.Run, error)
	CreateTicket(ctx context.Context, t board.Ticket, actor board.Actor) (board.Ticket, error)
	UpdateTicket(ctx context.Context, ref board.Ref, u board.TicketPatch, actor board.Actor) (board.Ticket, error)
	MoveTicket(ctx context.Context, ref board.Ref, req board.MoveRequest, authorName string) (board.Ticket, error)
	AddComment(ctx context.Context, ref board.Ref, c board.Comment) (board.Comment, error)
	// Landing is a ticket's landing record: a DONE ticket whose work
	// landed stays DONE (board.CheckLeaveDone).
	Landing(ctx context.Context, ref board.Ref) (board.Landing, error)
	RequestStop(ctx context.Context, ref board.Ref, by string) (board.Run, error)
	// Links: ticket_link, ticket_create's parent, ticket_show's links.
	store.Links
}

// PersonTools returns the board tools of a person's MCP client: the
// actor of every change is a human named author, and the board's rules
// are the ones `bonsai ticket …` and the web UI apply. run starts a beat
// for ticket_run; nil makes ticket_run refuse, naming the command.
func PersonTools(b Board, author string, run RunNow) []tool.Tool {
	if author == "" {
		author = "human"
	}
	p := &person{b: b, author: author, run: run}
	return append([]tool.Tool{
		p.tool("projects_list", true, "List the board's projects (slug, name, repository, settings). Archived projects are left out unless archived is true.",
			`{"type":"object","properties":{"archived":{"type":"boolean","description":"include archived projects"}},"additionalProperties":false}`, p.projects),
		p.tool("tickets_list", true, "List a project's tickets, optionally only those in one state or those blocked on a person's answer.",
			`{"type":"object","properties":{"project":{"type":"string","description":"project slug"},`+
				`"state":{"type":"string","enum":["BACKLOG","RESEARCH","IN_PROGRESS","VERIFICATION","DONE"]},`+
				`"blocked":{"type":"boolean","description":"only tickets waiting on a person's answer"}},"required":["project"],"additionalProperties":false}`, p.tickets),
		p.tool("ticket_show", true, "Show one ticket (slug#n) with its description, criteria, plan, comments and runs.",
			`{"type":"object","properties":{"ticket":{"type":"string","description":"the ticket, as slug#n"}},"required":["ticket"],"additionalProperties":false}`, p.show),
		p.tool("ticket_create", false, "Create a ticket in a project. It starts in BACKLOG unless state says RESEARCH (the agent starts researching it).",
			`{"type":"object","properties":{"project":{"type":"string","description":"project slug"},"title":{"type":"string"},`+
				`"description":{"type":"string","description":"Markdown"},"criteria":{"type":"array","items":{"type":"string"},"description":"acceptance criteria"},`+
				`"priority":{"type":"string","enum":["urgent","high","medium","low","none"]},"state":{"type":"string","enum":["BACKLOG","RESEARCH"]},`+
				`"parent":{"type":"string","description":"make it a sub-ticket of this ticket (slug#n, same project)"}},`+
				`"required":["project","title"],"additionalProperties":false}`, p.create),
		p.tool("ticket_comment", false, "Comment on a ticket as a person. On a ticket blocked on a question this is the answer that unblocks it.",
			`{"type":"object","properties":{"ticket":{"type":"string","description":"the ticket, as slug#n"},"content":{"type":"string","description":"Markdown"}},"required":["ticket","content"],"additionalProperties":false}`, p.comment),
		p.tool("ticket_ask", false, "Ask the agent working a ticket a question; it reads and answers it on its next run.",
			`{"type":"object","properties":{"ticket":{"type":"string","description":"the ticket, as slug#n"},"question":{"type":"string"}},"required":["ticket","question"],"additionalProperties":false}`, p.ask),
		p.tool("ticket_plan", false, "Replace a ticket's plan (Markdown) as a person.",
			`{"type":"object","properties":{"ticket":{"type":"string","description":"the ticket, as slug#n"},"plan":{"type":"string","description":"Markdown"}},"required":["ticket","plan"],"additionalProperties":false}`, p.plan),
		p.tool("ticket_move", false, "Move a ticket to another state as a person, under the board's rules: only the agent moves work to VERIFICATION (with evidence for every criterion); "+
			"sending work back from VERIFICATION to IN_PROGRESS needs feedback; DONE accepts the work.",
			`{"type":"object","properties":{"ticket":{"type":"string","description":"the ticket, as slug#n"},`+
				`"to":{"type":"string","enum":["BACKLOG","RESEARCH","IN_PROGRESS","VERIFICATION","DONE"]},`+
				`"feedback":{"type":"string","description":"what to change, when sending work back from VERIFICATION"}},"required":["ticket","to"],"additionalProperties":false}`, p.move),
		p.linkTool(),
	}, p.runTools()...)
}

// priorities maps the schema's priority names to the board's numbers.
var priorities = map[string]int{"urgent": board.PriorityUrgent, "high": board.PriorityHigh,
	"medium": board.PriorityMedium, "low": board.PriorityLow, "none": board.PriorityNone}

type person struct {
	b      Board
	author string
	run    RunNow // nil: ticket_run refuses
}

// personTool is one board tool: its handler decodes the arguments (the
// schema was checked already) and returns text or a board refusal.
type personTool struct {
	name, desc string
	schema     json.RawMessage
	readOnly   bool
	run        func(ctx context.Context, args json.RawMessage) (tool.Result, error)
}

func (t *personTool) Name() string            { return t.name }
func (t *personTool) Description() string     { return t.desc }
func (t *personTool) Schema() json.RawMessage { return t.schema }
func (t *personTool) ReadOnly() bool          { return t.readOnly }
func (t *personTool) Run(ctx context.Context, args json.RawMessage, _ func(tool.Result)) (tool.Result, error) {
	res, err := t.run(ctx, args)
	if err != nil {
		return refusal(err)
	}
	return res, nil
}

func (p *person) tool(name string, readOnly bool, desc, schema string, run func(context.Context, json.RawMessage) (tool.Result, error)) tool.Tool {
	return &personTool{name: name, desc: desc, schema: json.RawMessage(schema), readOnly: readOnly, run: run}
}

// refusal turns an error the board raised for the caller's input into a
// result the client's model reads; any other error is the runtime's.
func refusal(err error) (tool.Result, error) {
	switch board.ErrorCode(err) {
	case board.EINVALID, board.EREFUSED, board.ENOTFOUND, board.ECONFLICT:
		return tool.Error(err.Error()), nil
	}
	return tool.Result{}, err
}

func jsonResult(v any) (tool.Result, error) {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return tool.Result{}, err
	}
	return tool.Text(string(b)), nil
}

func parseRef(s string) (board.Ref, error) {
	return board.ParseRef(strings.TrimSpace(s))
}

func (p *person) projects(ctx context.Context, raw json.RawMessage) (tool.Result, error) {
	var a struct {
		Archived bool `json:"archived"`
	}
	if err := json.Unmarshal(raw, &a); err != nil {
		return tool.Result{}, err
	}
	ps, err := p.b.Projects(ctx, store.ProjectFilter{IncludeArchived: a.Archived})
	if err != nil {
		return tool.Result{}, err
	}
	if ps == nil {
		ps = []board.Project{}
	}
	return jsonResult(ps)
}

func (p *person) tickets(ctx context.Context, raw json.RawMessage) (tool.Result, error) {
	var a struct {
		Project string `json:"project"`
		State   string `json:"state"`
		Blocked bool   `json:"blocked"`
	}
	if err := json.Unmarshal(raw, &a); err != nil {
		return tool.Result{}, err
	}
	if _, err := p.b.Project(ctx, a.Project); err != nil {
		return tool.Result{}, err
	}
	f := store.TicketFilter{ProjectSlug: a.Project, Blocked: a.Blocked}
	if a.State != "" {
		st, err := board.ParseState(a.State)
		if err != nil {
			return tool.Result{}, err
		}
		f.State = st
	}
	ts, err := p.b.Tickets(ctx, f)
	if err != nil {
		return tool.Result{}, err
	}
	views := make([]view.Ticket, len(ts))
	for i, t := range ts {
		views[i] = view.NewTicket(t)
	}
	return jsonResult(views)
}

func (p *person) show(ctx context.Context, raw json.RawMessage) (tool.Result, error) {
	var a struct {
		Ticket string `json:"ticket"`
	}
	if err := json.Unmarshal(raw, &a); err != nil {
		return tool.Result{}, err
	}
	ref, err := parseRef(a.Ticket)
	if err != nil {
		return tool.Result{}, err
	}
	t, err := p.b.Ticket(ctx, ref)
	if err != nil {
		return tool.Result{}, err
	}
	cs, err := p.b.Comments(ctx, ref)
	if err != nil {
		return tool.Result{}, err
	}
	runs, err := p.b.Runs(ctx, ref)
	if err != nil {
		return tool.Result{}, err
	}
	d := view.NewTicketDetail(t, cs, runs)
	if err := d.LoadLinks(ctx, p.b, ref); err != nil {
		return tool.Result{}, err
	}
	d.NotRun = d.WithWaiting(nil)
	return jsonResult(d)
}

func (p *person) create(ctx context.Context, raw json.RawMessage) (tool.Result, error) {
	var a struct {
		Project     string   `json:"project"`
		Title       string   `json:"title"`
		Description string   `json:"description"`
		Criteria    []string `json:"criteria"`
		Priority    string   `json:"priority"`
		State       string   `json:"state"`
		Parent      string   `json:"parent"`
	}
	if err := json.Unmarshal(raw, &a); err != nil {
		return tool.Result{}, err
	}
	t := board.Ticket{ProjectSlug: a.Project, Title: strings.TrimSpace(a.Title), Description: a.Description,
		Priority: board.DefaultPriority, State: board.Backlog}
	for _, c := range a.Criteria {
		if c = strings.TrimSpace(c); c != "" {
			t.Criteria = append(t.Criteria, c)
		}
	}
	if a.Priority != "" {
		t.Priority = priorities[a.Priority]
	}
	if a.State != "" {
		st, err := board.ParseState(a.State)
		if err != nil {
			return tool.Result{}, err
		}
		t.State = st
	}
	if err := board.CheckNew(t); err != nil {
		return tool.Result{}, err
	}
	var err error
	if a.Parent != "" {
		t, err = p.createChild(ctx, t, a.Parent)
	} else {
		t, err = p.b.CreateTicket(ctx, t, board.Human)
	}
	if err != nil {
		return tool.Result{}, err
	}
	return tool.Text(fmt.Sprintf("Created %s (%s) in %s.", t.Ref(), t.Title, t.State)), nil
}

// addComment posts a person's comment of kind on the ticket named in raw.
func (p *person) addComment(ctx context.Context, ticket string, kind board.CommentKind, content string) (tool.Result, error) {
	ref, err := parseRef(ticket)
	if err != nil {
		return tool.Result{}, err
	}
	c := board.Comment{AuthorType: board.Human, AuthorName: p.author, Kind: kind, Content: content}
	if err := c.Validate(); err != nil {
		return tool.Result{}, err
	}
	if _, err := p.b.AddComment(ctx, ref, c); err != nil {
		return tool.Result{}, err
	}
	return tool.Text("Comment posted on " + ref.String() + "."), nil
}

func (p *person) comment(ctx context.Context, raw json.RawMessage) (tool.Result, error) {
	var a struct {
		Ticket  string `json:"ticket"`
		Content string `json:"content"`
	}
	if err := json.Unmarshal(raw, &a); err != nil {
		return tool.Result{}, err
	}
	return p.addComment(ctx, a.Ticket, board.KindNote, a.Content)
}

func (p *person) ask(ctx context.Context, raw json.RawMessage) (tool.Result, error) {
	var a struct {
		Ticket   string `json:"ticket"`
		Question string `json:"question"`
	}
	if err := json.Unmarshal(raw, &a); err != nil {
		return tool.Result{}, err
	}
	return p.addComment(ctx, a.Ticket, board.KindQuestion, a.Question)
}

func (p *person) plan(ctx context.Context, raw json.RawMessage) (tool.Result, error) {
	var a struct {
		Ticket string `json:"ticket"`
		Plan   string `json:"plan"`
	}
	if err := json.Unmarshal(raw, &a); err != nil {
		return tool.Result{}, err
	}
	ref, err := parseRef(a.Ticket)
	if err != nil {
		return tool.Result{}, err
	}
	if _, err := p.b.UpdateTicket(ctx, ref, board.TicketPatch{Plan: &a.Plan}, board.Human); err != nil {
		return tool.Result{}, err
	}
	return tool.Text("Plan of " + ref.String() + " saved."), nil
}

func (p *person) move(ctx context.Context, raw json.RawMessage) (tool.Result, error) {
	var a struct {
		Ticket   string `json:"ticket"`
		To       string `json:"to"`
		Feedback string `json:"feedback"`
	}
	if err := json.Unmarshal(raw, &a); err != nil {
		return tool.Result{}, err
	}
	ref, err := parseRef(a.Ticket)
	if err != nil {
		return tool.Result{}, err
	}
	to, err := board.ParseState(a.To)
	if err != nil {
		return tool.Result{}, err
	}
	req := board.MoveRequest{To: to, Actor: board.Human, Feedback: a.Feedback}
	if err := p.checkLeaveDone(ctx, ref, req); err != nil {
		return tool.Result{}, err
	}
	t, err := p.b.MoveTicket(ctx, ref, req, p.author)
	if err != nil {
		return tool.Result{}, err
	}
	return tool.Text(fmt.Sprintf("Moved %s to %s.", t.Ref(), t.State)), nil
}

// checkLeaveDone refuses to move a DONE ticket whose work landed out of
// DONE, as `bonsai ticket move` and the web UI do.
func (p *person) checkLeaveDone(ctx context.Context, ref board.Ref, req board.MoveRequest) error {
	t, err := p.b.Ticket(ctx, ref)
	if err != nil || t.State != board.Done {
		return err
	}
	l, err := p.b.Landing(ctx, ref)
	if board.ErrorCode(err) == board.ENOTFOUND {
		return nil
	}
	if err != nil {
		return err
	}
	return board.CheckLeaveDone(t, l, req)
}
