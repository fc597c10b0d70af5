package tickettool

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/llm"
	"github.com/bonsai-run/bonsai/internal/tool"
)

func planUpdate(plan string) board.TicketPatch { return board.TicketPatch{Plan: &plan} }

// Evidence is one acceptance criterion and how it is met.
type Evidence struct {
	Criterion string `json:"criterion"`
	Evidence  string `json:"evidence"`
	// Attach are worktree paths of files proving it (attach.go).
	Attach []string `json:"attach,omitempty"`
}

type moveArgs struct {
	To       string     `json:"to"`
	Criteria []Evidence `json:"criteria"`
}

func (s *Session) moveTool() tool.Tool {
	return &ticketTool{
		name: "ticket_move",
		schema: json.RawMessage(`{"type":"object","properties":{` +
			`"to":{"type":"string","enum":["IN_PROGRESS","VERIFICATION"]},` +
			`"criteria":{"type":"array","description":"for VERIFICATION: every acceptance criterion with its evidence",` +
			`"items":{"type":"object","properties":{"criterion":{"type":"string"},"evidence":{"type":"string"},` + attachSchema + `},` +
			`"required":["criterion","evidence"],"additionalProperties":false}}},` +
			`"required":["to"],"additionalProperties":false}`),
		run: s.move,
	}
}

func (s *Session) move(ctx context.Context, raw json.RawMessage) (tool.Result, error) {
	var args moveArgs
	if r := decode("ticket_move", raw, &args); r != nil {
		return *r, nil
	}
	t, err := s.cfg.Board.Ticket(ctx, s.cfg.Ref)
	if err != nil {
		return asResult(err)
	}
	to := board.State(args.To)
	req := board.MoveRequest{To: to, Actor: board.Agent}
	switch to {
	case board.InProgress:
		if err := board.CheckMove(t, req); err != nil {
			return asResult(err)
		}
		if strings.TrimSpace(t.Plan) == "" {
			return refuse("save a plan with ticket_plan before moving the ticket to IN_PROGRESS"), nil
		}
		if _, err := s.cfg.Board.MoveTicket(ctx, s.cfg.Ref, req, s.cfg.Author); err != nil {
			return asResult(err)
		}
		s.record(func(e *Effects) { e.MovedTo = to })
		// The run was picked to research (or reply): it ends here, and
		// the next beat implements the plan in a run of its own, so each
		// run is recorded as what it did.
		return tool.Result{
			Content:   []llm.Part{llm.Text(fmt.Sprintf("%s moved to IN_PROGRESS. This run ends here; the next run implements the plan.", s.cfg.Ref))},
			Terminate: true,
		}, nil
	case board.Verification:
		return s.submit(ctx, t, args.Criteria)
	}
	return refuse("to must be IN_PROGRESS or VERIFICATION, not %q; people move tickets to other states", args.To), nil
}

// submit moves the ticket to VERIFICATION once every rule holds, posting
// the completion comment with the evidence and the verification summary.
func (s *Session) submit(ctx context.Context, t board.Ticket, given []Evidence) (tool.Result, error) {
	req := board.MoveRequest{To: board.Verification, Actor: board.Agent}
	if err := board.CheckMove(t, req); err != nil {
		return asResult(err)
	}
	matched, problems := matchCriteria(t.Criteria, given)
	if len(problems) > 0 {
		return refuse("not moved to VERIFICATION: %s", strings.Join(problems, "; ")), nil
	}
	var paths []string
	for _, e := range given {
		paths = append(paths, e.Attach...)
	}
	files, problem := s.readFiles(ctx, paths)
	if problem != "" {
		return refuse("not moved to VERIFICATION: %s", problem), nil
	}
	g := &gitCheck{ex: s.cfg.Exec, base: s.cfg.Base}
	if problem, err := g.ready(ctx); err != nil {
		return tool.Result{}, err
	} else if problem != "" {
		return refuse("not moved to VERIFICATION: %s", problem), nil
	}
	if s.cfg.Update != nil {
		files, help, err := s.cfg.Update(ctx)
		if err != nil {
			return refuse("not moved to VERIFICATION: the default branch could not be brought into this branch: %v", err), nil
		}
		if len(files) > 0 {
			return refuse("not moved to VERIFICATION: the runtime tried to bring the default branch in, stopped at the conflicts and changed nothing. %s", help), nil
		}
	}
	var ver *verification
	if s.cfg.Verify != "" {
		v, err := s.runVerify(ctx)
		if err != nil {
			return tool.Result{}, err
		}
		if !v.passed() {
			return refuse("not moved to VERIFICATION: the verify command `%s` %s. End of its output:\n%s",
				v.Command, v.failure(), v.Tail), nil
		}
		ver = &v
	}
	summary, err := s.summary(ctx, g, ver)
	if err != nil {
		return tool.Result{}, err
	}
	c, err := s.comment(ctx, board.KindCompletion, completionText(matched, summary))
	if err != nil {
		return asResult(err)
	}
	if _, err := s.attachFiles(ctx, c.ID, files); err != nil {
		return asResult(err)
	}
	if _, err := s.cfg.Board.MoveTicket(ctx, s.cfg.Ref, req, s.cfg.Author); err != nil {
		return asResult(err)
	}
	s.record(func(e *Effects) { e.MovedTo = board.Verification })
	return tool.Result{
		Content:   []llm.Part{llm.Text(fmt.Sprintf("%s moved to VERIFICATION; a person will review it. Your work on this ticket is done for now.", s.cfg.Ref))},
		Terminate: true,
	}, nil
}

// matchCriteria pairs each acceptance criterion with its evidence: by text
// (ignoring case, spacing and a leading number), else by position. It
// returns the pairs in the ticket's order, or what is missing.
func matchCriteria(criteria []string, given []Evidence) ([]Evidence, []string) {
	if len(criteria) == 0 {
		if len(given) == 0 || strings.TrimSpace(given[0].Evidence) == "" {
			return nil, []string{"the ticket has no acceptance criteria; give at least one entry in criteria saying what you did and how you checked it"}
		}
		return given, nil
	}
	byText := map[string]Evidence{}
	for _, e := range given {
		byText[normCriterion(e.Criterion)] = e
	}
	var out []Evidence
	var problems []string
	for i, c := range criteria {
		e, found := byText[normCriterion(c)]
		if !found && i < len(given) && len(given) == len(criteria) {
			e, found = given[i], true
		}
		if !found || strings.TrimSpace(e.Evidence) == "" {
			problems = append(problems, fmt.Sprintf("no evidence for criterion %d (%q)", i+1, c))
			continue
		}
		out = append(out, Evidence{Criterion: c, Evidence: e.Evidence, Attach: e.Attach})
	}
	return out, problems
}

func normCriterion(s string) string {
	s = strings.ToLower(strings.TrimSpace(s))
	s = strings.TrimLeft(s, "0123456789.)-*# ")
	return strings.Join(strings.Fields(s), " ")
}

func completionText(evidence []Evidence, summary string) string {
	var b strings.Builder
	b.WriteString("Ready for review.\n\n")
	for i, e := range evidence {
		fmt.Fprintf(&b, "%d. **%s**\n   %s\n", i+1, e.Criterion, strings.ReplaceAll(strings.TrimSpace(e.Evidence), "\n", "\n   "))
		if len(e.Attach) > 0 {
			fmt.Fprintf(&b, "   Attached: %s\n", attachedNames(e.Attach))
		}
	}
	b.WriteString("\n")
	b.WriteString(summary)
	return b.String()
}

// attachedNames lists the file names of worktree paths as Markdown code.
func attachedNames(paths []string) string {
	names := make([]string, len(paths))
	for i, p := range paths {
		names[i] = "`" + strings.ReplaceAll(board.SanitizeName(p), "`", "'") + "`"
	}
	return strings.Join(names, ", ")
}
