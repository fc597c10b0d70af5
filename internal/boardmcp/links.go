package boardmcp

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/store"
	"github.com/bonsai-run/bonsai/internal/tool"
)

func (p *person) linkTool() tool.Tool {
	return p.tool("ticket_link", false, "Make a ticket wait for another ticket of its project (blocked_by), or a sub-ticket of one (parent); remove drops the link. "+
		"Agents do not pick a ticket while a blocker or a sub-ticket of it is not DONE; a link that would close a dependency cycle is refused, naming it.",
		`{"type":"object","properties":{"ticket":{"type":"string","description":"the ticket, as slug#n"},`+
			`"blockedBy":{"type":"string","description":"the ticket it waits for, as slug#n"},`+
			`"parent":{"type":"string","description":"the ticket it is a sub-ticket of, as slug#n"},`+
			`"remove":{"type":"boolean","description":"remove the link instead"}},"required":["ticket"],"additionalProperties":false}`, p.link)
}

func (p *person) link(ctx context.Context, raw json.RawMessage) (tool.Result, error) {
	var a struct {
		Ticket    string `json:"ticket"`
		BlockedBy string `json:"blockedBy"`
		Parent    string `json:"parent"`
		Remove    bool   `json:"remove"`
	}
	if err := json.Unmarshal(raw, &a); err != nil {
		return tool.Result{}, err
	}
	ref, err := parseRef(a.Ticket)
	if err != nil {
		return tool.Result{}, err
	}
	kind, other := board.LinkBlockedBy, a.BlockedBy
	if (a.BlockedBy == "") == (a.Parent == "") {
		return tool.Result{}, board.Errorf(board.EINVALID, "give exactly one of blockedBy and parent")
	}
	if a.Parent != "" {
		kind, other = board.LinkParent, a.Parent
	}
	o, err := parseRef(other)
	if err != nil {
		return tool.Result{}, err
	}
	l := board.Link{Ticket: ref, Other: o, Kind: kind}
	if a.Remove {
		if err := p.b.UnlinkTickets(ctx, l, board.Human); err != nil {
			return tool.Result{}, err
		}
		return tool.Text(fmt.Sprintf("Removed the %s link of %s to %s.", kind, ref, o)), nil
	}
	if err := p.b.LinkTickets(ctx, l, board.Human); err != nil {
		return tool.Result{}, err
	}
	if kind == board.LinkParent {
		return tool.Text(fmt.Sprintf("%s is a sub-ticket of %s, which waits until its sub-tickets are DONE.", ref, o)), nil
	}
	return tool.Text(fmt.Sprintf("%s waits for %s.", ref, o)), nil
}

// createChild creates t as a sub-ticket of parent, in its project.
func (p *person) createChild(ctx context.Context, t board.Ticket, parent string) (board.Ticket, error) {
	ref, err := parseRef(parent)
	if err != nil {
		return board.Ticket{}, err
	}
	if ref.Project != t.ProjectSlug {
		return board.Ticket{}, board.Errorf(board.EINVALID, "parent %s is in another project than %s; a sub-ticket is in its parent's project", ref, t.ProjectSlug)
	}
	ts, err := p.b.CreateSubTickets(ctx, store.SubTickets{Parent: ref, Tickets: []board.Ticket{t}, Actor: board.Human})
	if err != nil {
		return board.Ticket{}, err
	}
	return ts[0], nil
}
