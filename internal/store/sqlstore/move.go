package sqlstore

import (
	"context"

	"github.com/bonsai-run/bonsai/internal/board"
)

// MoveTicket applies board.CheckMove and board.ApplyMove, and adds the
// comment board.MoveComment asks for (a person's feedback when work goes
// back from VERIFICATION) in the same transaction. The rules that follow the project's
// agent settings (taking BACKLOG tickets, a person approving plans) read
// them from the project here: the caller's req.Project is ignored.
func (db *DB) MoveTicket(ctx context.Context, ref board.Ref, req board.MoveRequest, authorName string) (board.Ticket, error) {
	var t board.Ticket
	err := db.write(ctx, func(tx *tx) error {
		var err error
		if t, err = getTicket(ctx, tx, ref); err != nil {
			return err
		}
		req.Project = board.AgentSettings{}
		err = tx.queryRow(`SELECT settings FROM projects WHERE id = ?`, t.ProjectID).Scan(settingsJSON{&req.Project})
		if err != nil {
			return err
		}
		if err := board.CheckMove(t, req); err != nil {
			return err
		}
		from := t.State
		t = board.ApplyMove(t, req)
		feedback, err := board.MoveComment(from, req, authorName)
		if err != nil {
			return err
		}
		if err := tx.saveTicket(&t); err != nil {
			return err
		}
		err = tx.event(board.EventTicketMoved, t.ProjectID, t.ID, req.Actor,
			map[string]any{"ref": ref.String(), "from": from, "to": t.State, "subState": t.SubState})
		if err != nil || feedback == nil {
			return err
		}
		_, err = tx.addComment(&t, *feedback)
		return err
	})
	return result(t, wrap(err, "move ticket %s", ref))
}
