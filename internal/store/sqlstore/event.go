package sqlstore

import (
	"context"
	"database/sql"
	"encoding/json"

	"github.com/bonsai-run/bonsai/internal/board"
)

// DefaultEvents is how many events Events returns for a limit of 0.
const DefaultEvents = 100

// Events returns up to limit events with an ID greater than afterID, oldest
// first; a limit of 0 or less means DefaultEvents.
func (db *DB) Events(ctx context.Context, afterID int64, limit int) ([]board.Event, error) {
	if limit <= 0 {
		limit = DefaultEvents
	}
	es, err := list(ctx, db, scanEvent, `SELECT id, type, project_id, ticket_id, actor, data, created_at
		FROM events WHERE id > ? ORDER BY id LIMIT ?`, afterID, limit)
	return result(es, wrap(err, "list events"))
}

func scanEvent(s scanner) (board.Event, error) {
	var e board.Event
	var data sql.NullString
	var created int64
	err := s.Scan(&e.ID, &e.Type, &e.ProjectID, &e.TicketID, &e.Actor, &data, &created)
	if data.Valid {
		e.Data = json.RawMessage(data.String)
	}
	e.CreatedAt = fromMillis(created)
	return e, err
}
