package tickettool

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/store"
	"github.com/bonsai-run/bonsai/internal/tool"
)

// subTicket is one sub-ticket of ticket_split's arguments.
type subTicket struct {
	Title       string   `json:"title"`
	Description string   `json:"description"`
	Criteria    []string `json:"criteria"`
}

func (s *Session) splitTool() tool.Tool {
	return &ticketTool{
		name: "ticket_split",
		schema: json.RawMessage(fmt.Sprintf(`{"type":"object","properties":{`+
			`"tickets":{"type":"array","minItems":1,"maxItems":%d,"description":"the sub-tickets, in the order they should be done",`+
			`"items":{"type":"object","properties":{`+
			`"title":{"type":"string"},`+
			`"description":{"type":"string","description":"what to do, in Markdown: the part of your plan it carries out"},`+
			`"criteria":{"type":"array","minItems":1,"items":{"type":"string"},"description":"its own acceptance criteria"}},`+
			`"required":["title","description","criteria"],"additionalProperties":false}}},`+
			`"required":["tickets"],"additionalProperties":false}`, board.MaxSplit)),
		run: s.split,
	}
}

func (s *Session) split(ctx context.Context, raw json.RawMessage) (tool.Result, error) {
	var args struct {
		Tickets []subTicket `json:"tickets"`
	}
	if r := decode("ticket_split", raw, &args); r != nil {
		return *r, nil
	}
	if n := len(args.Tickets); n == 0 || n > board.MaxSplit {
		return refuse("give 1 to %d sub-tickets, not %d; a larger piece of work is split again later, by its sub-tickets' own research", board.MaxSplit, n), nil
	}
	t, err := s.cfg.Board.Ticket(ctx, s.cfg.Ref)
	if err != nil {
		return asResult(err)
	}
	if t.State != board.Research {
		return refuse("the ticket is in %s; work is split in RESEARCH, while you plan it", t.State), nil
	}
	ls, err := s.cfg.Board.TicketLinks(ctx, s.cfg.Ref)
	if err != nil {
		return asResult(err)
	}
	if ls.Parent != nil {
		return refuse("%s is a sub-ticket of %s and is not split again; plan it as one piece of work, or ask a person with ticket_ask to split it",
			s.cfg.Ref, ls.Parent.Ref), nil
	}
	if len(ls.Children) > 0 {
		return refuse("%s already has sub-tickets (%s); it is split once. Save your plan with ticket_plan and move the ticket to IN_PROGRESS",
			s.cfg.Ref, refList(ls.Children)), nil
	}
	drafts := make([]board.Ticket, len(args.Tickets))
	for i, st := range args.Tickets {
		if strings.TrimSpace(st.Title) == "" || len(st.Criteria) == 0 {
			return refuse("sub-ticket %d needs a title and at least one acceptance criterion", i+1), nil
		}
		desc := fmt.Sprintf("Part %d of %d of %s (%s).\n\n%s", i+1, len(args.Tickets), s.cfg.Ref, t.Title, st.Description)
		drafts[i] = board.Ticket{Title: st.Title, Description: desc, Criteria: st.Criteria,
			State: s.childState(), Priority: t.Priority}
	}
	kids, err := s.cfg.Board.CreateSubTickets(ctx, store.SubTickets{Parent: s.cfg.Ref, Tickets: drafts, Actor: board.Agent,
		Comment: board.Comment{AuthorType: board.Agent, AuthorName: s.cfg.Author, Kind: board.KindStatus, Content: splitText(s.cfg.Ref, kids(drafts))}})
	if err != nil {
		return asResult(err)
	}
	refs := make([]board.Ref, len(kids))
	for i, k := range kids {
		refs[i] = k.Ref()
	}
	s.record(func(e *Effects) { e.Split = refs })
	return ok("Created %s as sub-tickets of %s, in %s. Now save your plan with ticket_plan (say which sub-ticket does what) and move %s to IN_PROGRESS: it waits until every sub-ticket is DONE, then a run verifies the whole.",
		joinRefs(refs), s.cfg.Ref, s.childState(), s.cfg.Ref), nil
}

// childState is the state sub-tickets start in: IN_PROGRESS, their
// description being their part of the plan, unless a person approves
// each plan in the project (Config.SplitState).
func (s *Session) childState() board.State {
	if s.cfg.SplitState != "" {
		return s.cfg.SplitState
	}
	return board.InProgress
}

// kids lists the titles of the sub-tickets about to be created, for the
// parent's comment (their numbers are not known before the transaction).
func kids(ts []board.Ticket) []string {
	out := make([]string, len(ts))
	for i, t := range ts {
		out[i] = t.Title
	}
	return out
}

func splitText(ref board.Ref, titles []string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Split %s into %d sub-tickets:\n\n", ref, len(titles))
	for i, t := range titles {
		fmt.Fprintf(&b, "%d. %s\n", i+1, t)
	}
	fmt.Fprintf(&b, "\n%s waits until they are all DONE; then a run verifies the whole.", ref)
	return b.String()
}

func refList(ts []board.LinkedTicket) string {
	parts := make([]string, len(ts))
	for i, t := range ts {
		parts[i] = t.Ref.String()
	}
	return strings.Join(parts, ", ")
}

func joinRefs(rs []board.Ref) string {
	parts := make([]string, len(rs))
	for i, r := range rs {
		parts[i] = r.String()
	}
	return strings.Join(parts, ", ")
}
