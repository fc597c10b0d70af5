package tickettool

import (
	"context"
	"encoding/json"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/llm"
	"github.com/bonsai-run/bonsai/internal/tool"
)

// asResult turns an error the board raised for the model's input into a
// result it reads; any other error is the runtime's failure.
func asResult(err error) (tool.Result, error) {
	switch board.ErrorCode(err) {
	case board.EINVALID, board.EREFUSED, board.ENOTFOUND, board.ECONFLICT:
		return refuse("%v", err), nil
	}
	return tool.Result{}, err
}

func (s *Session) commentTool() tool.Tool {
	return &ticketTool{
		name: "ticket_comment",
		schema: json.RawMessage(`{"type":"object","properties":{` +
			`"content":{"type":"string","description":"Markdown text of the comment"},` +
			`"kind":{"type":"string","enum":["status","completion"],"description":"status for progress, completion when the work is done"},` +
			attachSchema + `},"required":["content","kind"],"additionalProperties":false}`),
		run: func(ctx context.Context, raw json.RawMessage) (tool.Result, error) {
			var args struct {
				Content string   `json:"content"`
				Kind    string   `json:"kind"`
				Attach  []string `json:"attach"`
			}
			if r := decode("ticket_comment", raw, &args); r != nil {
				return *r, nil
			}
			kind := board.CommentKind(args.Kind)
			if kind != board.KindStatus && kind != board.KindCompletion {
				return refuse("kind must be status or completion, not %q; ask questions with ticket_ask", args.Kind), nil
			}
			files, problem := s.readFiles(ctx, args.Attach)
			if problem != "" {
				return refuse("comment not posted: %s", problem), nil
			}
			c, err := s.comment(ctx, kind, args.Content)
			if err != nil {
				return asResult(err)
			}
			attached, err := s.attachFiles(ctx, c.ID, files)
			if err != nil {
				return asResult(err)
			}
			return tool.Result{Content: []llm.Part{llm.Text("Comment posted on " + s.cfg.Ref.String() + "." + attached)}, Details: c}, nil
		},
	}
}

func (s *Session) askTool() tool.Tool {
	return &ticketTool{
		name: "ticket_ask",
		schema: json.RawMessage(`{"type":"object","properties":{` +
			`"question":{"type":"string","description":"the question, with the context a person needs to answer it"}},` +
			`"required":["question"],"additionalProperties":false}`),
		run: func(ctx context.Context, raw json.RawMessage) (tool.Result, error) {
			var args struct {
				Question string `json:"question"`
			}
			if r := decode("ticket_ask", raw, &args); r != nil {
				return *r, nil
			}
			c, err := s.comment(ctx, board.KindQuestion, args.Question)
			if err != nil {
				return asResult(err)
			}
			return tool.Result{
				Content:   []llm.Part{llm.Text("Question posted; the ticket is blocked until a person replies. Stop here: this run ends.")},
				Terminate: true,
				Details:   c,
			}, nil
		},
	}
}

func (s *Session) planTool() tool.Tool {
	return &ticketTool{
		name: "ticket_plan",
		schema: json.RawMessage(`{"type":"object","properties":{` +
			`"plan":{"type":"string","description":"the plan in Markdown; replaces any earlier plan"}},` +
			`"required":["plan"],"additionalProperties":false}`),
		run: func(ctx context.Context, raw json.RawMessage) (tool.Result, error) {
			var args struct {
				Plan string `json:"plan"`
			}
			if r := decode("ticket_plan", raw, &args); r != nil {
				return *r, nil
			}
			if len(args.Plan) < 10 {
				return refuse("the plan is empty; write the steps you will take in Markdown"), nil
			}
			t, err := s.cfg.Board.Ticket(ctx, s.cfg.Ref)
			if err != nil {
				return asResult(err)
			}
			if t.State != board.Research && t.State != board.InProgress {
				return refuse("the ticket is in %s; a plan is saved in RESEARCH or IN_PROGRESS", t.State), nil
			}
			if _, err := s.cfg.Board.UpdateTicket(ctx, s.cfg.Ref, planUpdate(args.Plan), board.Agent); err != nil {
				return asResult(err)
			}
			s.record(func(e *Effects) { e.Planned = true })
			next := ""
			if t.State == board.Research {
				next = " Move the ticket to IN_PROGRESS with ticket_move when you are ready to implement it."
			}
			return ok("Plan saved on %s.%s", s.cfg.Ref, next), nil
		},
	}
}
