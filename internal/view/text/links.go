package text

import (
	"fmt"
	"io"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/termsafe"
	"github.com/bonsai-run/bonsai/internal/view"
)

// writeLinks prints a ticket's parent, sub-tickets (with how many are
// DONE), blockers and the tickets it blocks.
func writeLinks(w io.Writer, d view.TicketDetail) {
	ls := d.Links
	if ls == nil {
		return
	}
	fmt.Fprintln(w)
	if ls.Parent != nil {
		fmt.Fprintf(w, "Sub-ticket of: %s\n", linked(*ls.Parent))
	}
	list := func(title string, ts []board.LinkedTicket) {
		if len(ts) == 0 {
			return
		}
		fmt.Fprintln(w, title)
		for _, t := range ts {
			fmt.Fprintf(w, "  %s\n", linked(t))
		}
	}
	if len(ls.Children) > 0 {
		p := board.Progress{Total: len(ls.Children)}
		for _, c := range ls.Children {
			if c.Done() {
				p.Done++
			}
		}
		list(fmt.Sprintf("Sub-tickets (%s):", p), ls.Children)
	}
	list("Blocked by:", ls.BlockedBy)
	list("Blocks:", ls.Blocks)
}

func linked(t board.LinkedTicket) string {
	return fmt.Sprintf("%s %s (%s)", t.Ref, termsafe.Line(t.Title), t.State)
}

// writeWaiting is status's list of tickets waiting for other tickets.
func writeWaiting(w io.Writer, ws []view.WaitingTicket) error {
	if len(ws) == 0 {
		return nil
	}
	fmt.Fprintln(w, "\nWAITING FOR OTHER TICKETS (not picked until those are DONE)")
	t := NewTable(w)
	for _, x := range ws {
		t.Row("  "+x.Ref, Truncate(x.Title, 40), termsafe.Line(x.Waits))
	}
	return t.Flush()
}
