package view

import (
	"fmt"

	"github.com/bonsai-run/bonsai/internal/board"
)

// SetLanding gives the detail of a ticket of project p its landing record
// (nil for none) and, when the work stays on its branch, the hint saying
// where the branch is and how to merge it.
func (d *TicketDetail) SetLanding(p board.Project, l *board.Landing) {
	d.Landing = l
	d.MergeHint = MergeHint(p, d.Ticket.Ticket, l)
}

// MergeHint says where a ticket's work is and how to merge it when the
// project does not land it (mode none) and it has not landed; "" when the
// work lands by itself, landed, or there is no branch yet.
func MergeHint(p board.Project, t board.Ticket, l *board.Landing) string {
	if t.Branch == "" || (t.State != board.Verification && t.State != board.Done) {
		return ""
	}
	none := p.Agent.Land == board.LandNone
	if l != nil {
		if l.Commit != "" {
			return ""
		}
		none = l.Mode == board.LandNone
	}
	if !none {
		return ""
	}
	where := "in the project's repository, " + p.Repo
	if !board.IsLocalRepo(p.Repo) {
		where = "pushed to the project's repository"
	}
	return fmt.Sprintf("The work is on the branch `%s`, %s. Merge it into `%s` yourself (`git merge %s`), "+
		"or let Bonsai land it: `bonsai project edit %s --land merge`, then `bonsai ticket land %s`.",
		t.Branch, where, p.DefaultBranch, t.Branch, p.Slug, t.Ref())
}
