package board

import "fmt"

// NewLinks returns a ticket's Links with none yet: empty lists, never nil.
func NewLinks() Links {
	return Links{Children: []LinkedTicket{}, BlockedBy: []LinkedTicket{}, Blocks: []LinkedTicket{}}
}

// Add files o, linked by kind: one of the ticket's own links (own: its
// blocker or its parent) or a link to it (a ticket it blocks, its
// sub-ticket).
func (l *Links) Add(own bool, kind LinkKind, o LinkedTicket) {
	switch {
	case own && kind == LinkParent:
		l.Parent = &o
	case own:
		l.BlockedBy = append(l.BlockedBy, o)
	case kind == LinkParent:
		l.Children = append(l.Children, o)
	default:
		l.Blocks = append(l.Blocks, o)
	}
}

// NewSubTickets checks the sub-tickets ts of parent and the comment to
// post on it (none when it has no content), and returns them as
// NewTicket makes them, in parent's project.
func NewSubTickets(parent Ref, ts []Ticket, comment Comment) ([]Ticket, error) {
	if len(ts) == 0 || len(ts) > MaxSplit {
		return nil, Errorf(EINVALID, "give 1 to %d sub-tickets at once, not %d", MaxSplit, len(ts))
	}
	if comment.Content != "" {
		if err := comment.Validate(); err != nil {
			return nil, err
		}
	}
	out := make([]Ticket, len(ts))
	for i, t := range ts {
		t.ProjectSlug = parent.Project
		var err error
		if out[i], err = NewTicket(t); err != nil {
			return nil, fmt.Errorf("sub-ticket %d: %w", i+1, err)
		}
	}
	return out, nil
}
