package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"maps"
	"time"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/store"
)

const hookColumns = `h.id, h.name, p.slug, h.scheme, h.header, h.secret, h.action, h.target, h.events, h.conditions,
	h.title, h.description, h.criteria, h.priority, h.start_state, h.created_at, h.updated_at`

const hookFrom = ` FROM hooks h JOIN projects p ON p.id = h.project_id`

func scanHook(r scanner) (board.Hook, error) {
	var h board.Hook
	err := r.Scan(&h.ID, &h.Name, &h.ProjectSlug, &h.Scheme, &h.Header, &h.Secret, &h.Action, &h.Target,
		jsonList{&h.Events}, jsonMap{&h.When}, &h.Title, &h.Description, jsonList{&h.Criteria}, &h.Priority, &h.State,
		ms{&h.CreatedAt}, ms{&h.UpdatedAt})
	return h, err
}

func getHook(ctx context.Context, q queryer, name string) (board.Hook, error) {
	h, err := one(ctx, q, scanHook, func() error {
		return board.Errorf(board.ENOTFOUND, "no hook %q; 'bonsai hook list' shows them", name)
	}, `SELECT `+hookColumns+hookFrom+` WHERE h.name = ?`, name)
	return result(h, wrap(err, "read hook %s", name))
}

// CreateHook validates h and stores it with an ID.
func (db *DB) CreateHook(ctx context.Context, h board.Hook) (board.Hook, error) {
	if err := h.Validate(); err != nil {
		return board.Hook{}, err
	}
	h.When = maps.Clone(h.When)
	if h.When == nil {
		h.When = map[string]string{}
	}
	err := db.write(ctx, func(tx *tx) error {
		p, err := getProject(ctx, tx, h.ProjectSlug)
		if err != nil {
			return err
		}
		if err := tx.expect(false, hookTaken(h.Name), `SELECT 1 FROM hooks WHERE name = ?`, h.Name); err != nil {
			return err
		}
		h.ID, h.CreatedAt, h.UpdatedAt = db.newID(), tx.now, tx.now
		_, err = tx.exec(`INSERT INTO hooks (id, name, project_id, scheme, header, secret, action, target, events, conditions,
			title, description, criteria, priority, start_state, created_at, updated_at)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
			h.ID, h.Name, p.ID, string(h.Scheme), h.Header, h.Secret, string(h.Action), h.Target, jsonList{&h.Events},
			jsonMap{&h.When}, h.Title, h.Description, jsonList{&h.Criteria}, h.Priority, string(h.State), tx.nowMs(), tx.nowMs())
		if err != nil && db.conflict(err) {
			return hookTaken(h.Name)
		}
		return err
	})
	return result(h, wrap(err, "create hook %s", h.Name))
}

func hookTaken(name string) error {
	return board.Errorf(board.ECONFLICT, "a hook named %q exists; pick another name or remove it with 'bonsai hook rm %s'", name, name)
}

// Hook returns one hook.
func (db *DB) Hook(ctx context.Context, name string) (board.Hook, error) {
	return getHook(ctx, db, name)
}

// HookList lists the hooks by name.
func (db *DB) HookList(ctx context.Context) ([]board.Hook, error) {
	hs, err := list(ctx, db, scanHook, `SELECT `+hookColumns+hookFrom+` ORDER BY h.name`)
	return result(hs, wrap(err, "list hooks"))
}

// DeleteHook removes a hook and its delivery log.
func (db *DB) DeleteHook(ctx context.Context, name string) error {
	err := db.inTx(ctx, false, func(tx *tx) error {
		h, err := getHook(ctx, tx, name)
		if err != nil {
			return err
		}
		if _, err := tx.exec(`DELETE FROM hook_deliveries WHERE hook_id = ?`, h.ID); err != nil {
			return err
		}
		_, err = tx.exec(`DELETE FROM hooks WHERE id = ?`, h.ID)
		return err
	})
	return wrap(err, "remove hook %s", name)
}

const deliveryColumns = `d.id, h.name, d.delivery_id, d.event, d.status, d.outcome, d.detail, d.ticket, d.size,
	d.received_at, d.finished_at`

const deliveryFrom = ` FROM hook_deliveries d JOIN hooks h ON h.id = d.hook_id`

func scanHookDelivery(r scanner) (board.HookDelivery, error) {
	var d board.HookDelivery
	err := r.Scan(&d.ID, &d.HookName, &d.DeliveryID, &d.Event, &d.Status, &d.Outcome, &d.Detail, &d.Ticket, &d.Size,
		ms{&d.ReceivedAt}, msOrZero{&d.FinishedAt})
	return d, err
}

// StartDelivery records a received delivery, once per delivery id.
func (db *DB) StartDelivery(ctx context.Context, d board.HookDelivery) (board.HookDelivery, error) {
	d.Detail = board.ClipDetail(d.Detail)
	err := db.inTx(ctx, false, func(tx *tx) error {
		h, err := getHook(ctx, tx, d.HookName)
		if err != nil {
			return err
		}
		d.ReceivedAt, d.FinishedAt = tx.now, time.Time{}
		if d.Outcome != board.DeliveryReceived {
			d.FinishedAt = tx.now
		}
		if d.DeliveryID != "" {
			if done, err := tx.retryDelivery(h.ID, &d); done || err != nil {
				return err
			}
		}
		err = tx.queryRow(`INSERT INTO hook_deliveries (hook_id, delivery_id, event, status, outcome, detail, ticket, size,
			received_at, finished_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`,
			h.ID, d.DeliveryID, d.Event, d.Status, string(d.Outcome), d.Detail, d.Ticket, d.Size, tx.nowMs(), zeroOr0(d.FinishedAt)).Scan(&d.ID)
		if err != nil && db.conflict(err) {
			return board.Errorf(board.ECONFLICT, "delivery %s of hook %s was received before", d.DeliveryID, d.HookName)
		}
		if err != nil {
			return err
		}
		_, err = tx.exec(`DELETE FROM hook_deliveries WHERE hook_id = ? AND id <= ?`, h.ID, d.ID-store.MaxDeliveries)
		return err
	})
	return result(d, wrap(err, "record a delivery of hook %s", d.HookName))
}

// retryDelivery receives again a delivery id that failed before (done
// true); one received before that did not fail is ECONFLICT.
func (tx *tx) retryDelivery(hookID string, d *board.HookDelivery) (bool, error) {
	var id int64
	var outcome string
	var at int64
	err := tx.queryRow(`SELECT id, outcome, received_at FROM hook_deliveries WHERE hook_id = ? AND delivery_id = ?`, hookID, d.DeliveryID).
		Scan(&id, &outcome, &at)
	if errors.Is(err, sql.ErrNoRows) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	if board.DeliveryOutcome(outcome) != board.DeliveryFailed {
		return false, board.Errorf(board.ECONFLICT, "delivery %s of hook %s was received before, at %s (%s)",
			d.DeliveryID, d.HookName, fromMillis(at).Format("2006-01-02 15:04:05Z"), outcome)
	}
	d.ID = id
	_, err = tx.exec(`UPDATE hook_deliveries SET event = ?, status = ?, outcome = ?, detail = ?, ticket = ?, size = ?,
		received_at = ?, finished_at = ? WHERE id = ?`,
		d.Event, d.Status, string(d.Outcome), d.Detail, d.Ticket, d.Size, tx.nowMs(), zeroOr0(d.FinishedAt), id)
	return true, err
}

// FinishDelivery records what became of a delivery.
func (db *DB) FinishDelivery(ctx context.Context, d board.HookDelivery) (board.HookDelivery, error) {
	d.Detail = board.ClipDetail(d.Detail)
	out, err := writing(ctx, db, false, func(tx *tx) (board.HookDelivery, error) {
		err := tx.execOne(board.Errorf(board.ENOTFOUND, "no delivery %d in the log", d.ID),
			`UPDATE hook_deliveries SET status = ?, outcome = ?, detail = ?, ticket = ?, finished_at = ? WHERE id = ?`,
			d.Status, string(d.Outcome), d.Detail, d.Ticket, tx.nowMs(), d.ID)
		if err != nil {
			return board.HookDelivery{}, err
		}
		return scanHookDelivery(tx.queryRow(`SELECT `+deliveryColumns+deliveryFrom+` WHERE d.id = ?`, d.ID))
	})
	return out, wrap(err, "record the outcome of delivery %d", d.ID)
}

// HookDeliveries lists the newest deliveries of a hook, or of all.
func (db *DB) HookDeliveries(ctx context.Context, name string, limit int) ([]board.HookDelivery, error) {
	if limit <= 0 {
		limit = 50
	}
	q, args := `SELECT `+deliveryColumns+deliveryFrom, []any{}
	if name != "" {
		if _, err := getHook(ctx, db, name); err != nil {
			return nil, err
		}
		q += ` WHERE h.name = ?`
		args = append(args, name)
	}
	ds, err := list(ctx, db, scanHookDelivery, q+` ORDER BY d.id DESC LIMIT ?`, append(args, limit)...)
	return result(ds, wrap(err, "list deliveries"))
}
