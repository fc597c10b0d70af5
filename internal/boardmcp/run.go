package boardmcp

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/tool"
)

// RunNow starts a beat for exactly one ticket now (`bonsai ticket run`)
// and returns a sentence saying which run started, or why it could not
// (a board refusal the client's model reads).
type RunNow func(ctx context.Context, ref board.Ref) (string, error)

// runTools are the run controls of a person's tools: stop a ticket's
// running run, start one now.
func (p *person) runTools() []tool.Tool {
	ticketOnly := `{"type":"object","properties":{"ticket":{"type":"string","description":"the ticket, as slug#n"}},"required":["ticket"],"additionalProperties":false}`
	return []tool.Tool{
		p.tool("ticket_stop", false, "Stop the agent running on a ticket (slug#n): the beat running it stops it within a few seconds and records the run as stopped. Refused when nothing runs.",
			ticketOnly, p.stop),
		p.tool("ticket_run", false, "Start an agent on a ticket (slug#n) now, without waiting for the next heartbeat, under the board's rules: refused, saying why, when no agent may work on it now.",
			ticketOnly, p.runNow),
	}
}

func (p *person) ticketArg(raw json.RawMessage) (board.Ref, error) {
	var a struct {
		Ticket string `json:"ticket"`
	}
	if err := json.Unmarshal(raw, &a); err != nil {
		return board.Ref{}, err
	}
	return parseRef(a.Ticket)
}

func (p *person) stop(ctx context.Context, raw json.RawMessage) (tool.Result, error) {
	ref, err := p.ticketArg(raw)
	if err != nil {
		return tool.Result{}, err
	}
	run, err := p.b.RequestStop(ctx, ref, p.author)
	if err != nil {
		return tool.Result{}, err
	}
	return tool.Text(fmt.Sprintf("Asked run %s of %s to stop; the beat running it stops it within a few seconds and records it as stopped.", run.ID, ref)), nil
}

func (p *person) runNow(ctx context.Context, raw json.RawMessage) (tool.Result, error) {
	ref, err := p.ticketArg(raw)
	if err != nil {
		return tool.Result{}, err
	}
	if _, err := p.b.Ticket(ctx, ref); err != nil {
		return tool.Result{}, err
	}
	if p.run == nil {
		return tool.Result{}, board.Errorf(board.EREFUSED, "this MCP server cannot start beats; run `bonsai ticket run %s`", ref)
	}
	msg, err := p.run(ctx, ref)
	if err != nil {
		return tool.Result{}, err
	}
	return tool.Text(msg), nil
}
