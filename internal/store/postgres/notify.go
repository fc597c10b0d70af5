package postgres

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/store"
)

// DefaultNotifications is how many notifications NotificationList returns
// for a limit of 0.
const DefaultNotifications = 50

const channelColumns = `c.id, c.name, c.kind, COALESCE(p.slug, ''), c.kinds::text, c.settings::text, c.created_at`

const channelFrom = `notify_channels c LEFT JOIN projects p ON p.id = c.project_id`

// AddChannel validates c and stores it with an ID.
func (db *DB) AddChannel(ctx context.Context, c board.Channel) (board.Channel, error) {
	c, kinds, settings, err := store.NewChannel(c)
	if err != nil {
		return board.Channel{}, err
	}
	err = db.write(ctx, func(tx *tx) error {
		projectID := ""
		if c.ProjectSlug != "" {
			p, err := getProject(ctx, tx, c.ProjectSlug)
			if err != nil {
				return err
			}
			projectID = p.ID
		}
		var exists bool
		if err := tx.queryRow(`SELECT EXISTS (SELECT 1 FROM notify_channels WHERE name = $1)`, c.Name).Scan(&exists); err != nil {
			return err
		}
		if exists {
			return board.Errorf(board.ECONFLICT, "channel %q already exists; remove it first with 'bonsai notify rm %s'", c.Name, c.Name)
		}
		c.ID, c.CreatedAt = db.newID(), tx.now
		_, err := tx.exec(`INSERT INTO notify_channels (id, name, kind, project_id, kinds, settings, created_at)
			VALUES ($1, $2, $3, $4, $5::jsonb, $6::jsonb, $7)`, c.ID, c.Name, string(c.Kind), projectID, kinds, settings, tx.nowMs())
		return err
	})
	if err != nil {
		return board.Channel{}, wrap(err, "add channel %s", c.Name)
	}
	return c, nil
}

// Channels lists the channels by name.
func (db *DB) Channels(ctx context.Context) ([]board.Channel, error) {
	rows, err := db.pool.Query(ctx, `SELECT `+channelColumns+` FROM `+channelFrom+` ORDER BY c.name`)
	if err != nil {
		return nil, fmt.Errorf("list channels: %w", err)
	}
	defer rows.Close()
	cs := []board.Channel{}
	for rows.Next() {
		var r store.ChannelRow
		if err := rows.Scan(r.Dest()...); err != nil {
			return nil, fmt.Errorf("list channels: %w", err)
		}
		c, err := r.Channel()
		if err != nil {
			return nil, err
		}
		cs = append(cs, c)
	}
	return cs, rows.Err()
}

// RemoveChannel removes a channel; its notifications go with it.
func (db *DB) RemoveChannel(ctx context.Context, name string) error {
	return db.inTx(ctx, false, func(tx *tx) error {
		res, err := tx.exec(`DELETE FROM notify_channels WHERE name = $1`, name)
		if err != nil {
			return fmt.Errorf("remove channel %s: %w", name, err)
		}
		if res.RowsAffected() == 0 {
			return board.Errorf(board.ENOTFOUND, "no channel %q; 'bonsai notify list' shows the channels", name)
		}
		return nil
	})
}

const notificationColumns = `o.id, o.channel_id, c.name, o.event_id, o.kind, o.status, o.attempts, o.last_error,
	COALESCE(o.payload ->> 'project', ''), COALESCE(o.payload ->> 'ticket', ''),
	COALESCE(o.payload ->> 'title', ''), COALESCE(o.payload ->> 'text', ''),
	COALESCE(o.payload ->> 'actor', ''), COALESCE(o.payload ->> 'status', ''),
	COALESCE((o.payload ->> 'costUsd')::double precision, 0), o.created_at, o.next_at, o.settled_at`

func scanNotification(s scanner, extra ...any) (board.Notification, error) {
	var n board.Notification
	var created, next int64
	var settled *int64
	dest := []any{&n.ID, &n.ChannelID, &n.ChannelName, &n.EventID, &n.Kind, &n.Status, &n.Attempts, &n.LastError,
		&n.Project, &n.Ticket, &n.Title, &n.Text, &n.Actor, &n.RunStat, &n.CostUSD, &created, &next, &settled}
	if err := s.Scan(append(dest, extra...)...); err != nil {
		return n, err
	}
	n.CreatedAt, n.NextAt = fromMillis(created), fromMillis(next)
	if settled != nil {
		t := fromMillis(*settled)
		n.SettledAt = &t
	}
	return n, nil
}

// NotificationsPending reports whether a notification waits to be sent.
func (db *DB) NotificationsPending(ctx context.Context) (bool, error) {
	var any bool
	err := db.pool.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM notify_outbox WHERE status = 'pending')`).Scan(&any)
	if err != nil {
		return false, fmt.Errorf("pending notifications: %w", err)
	}
	return any, nil
}

// NotificationList lists notifications, newest first.
func (db *DB) NotificationList(ctx context.Context, f store.NotificationFilter) ([]board.Notification, error) {
	if f.Limit <= 0 {
		f.Limit = DefaultNotifications
	}
	var where []string
	var args []any
	if f.Channel != "" {
		args = append(args, f.Channel)
		where = append(where, "c.name = $"+strconv.Itoa(len(args)))
	}
	if f.Status != "" {
		args = append(args, string(f.Status))
		where = append(where, "o.status = $"+strconv.Itoa(len(args)))
	}
	q := `SELECT ` + notificationColumns + ` FROM notify_outbox o JOIN notify_channels c ON c.id = o.channel_id`
	if len(where) > 0 {
		q += " WHERE " + strings.Join(where, " AND ")
	}
	args = append(args, f.Limit)
	rows, err := db.pool.Query(ctx, q+` ORDER BY o.id DESC LIMIT $`+strconv.Itoa(len(args)), args...)
	if err != nil {
		return nil, fmt.Errorf("list notifications: %w", err)
	}
	defer rows.Close()
	ns := []board.Notification{}
	for rows.Next() {
		n, err := scanNotification(rows)
		if err != nil {
			return nil, fmt.Errorf("list notifications: %w", err)
		}
		ns = append(ns, n)
	}
	return ns, rows.Err()
}

// ClaimNotifications leases due pending notifications to owner. It does
// not take the store's write lock: the rows are locked with FOR UPDATE
// SKIP LOCKED, so deliverers on several machines claim at once, each
// passing over the rows another is claiming, and a row claimed and
// committed by another is seen with its new lease and left alone.
func (db *DB) ClaimNotifications(ctx context.Context, owner string, lease time.Duration, limit int) ([]board.Delivery, error) {
	if owner == "" || lease <= 0 || limit <= 0 {
		return nil, board.Errorf(board.EINVALID, "a claim needs an owner, a lease and a limit")
	}
	var ds []board.Delivery
	err := db.inTx(ctx, false, func(tx *tx) error {
		now := tx.nowMs()
		rows, err := tx.Query(ctx, `WITH claimed AS (
				UPDATE notify_outbox SET lease_owner = $1, lease_until = $2, attempts = attempts + 1
				WHERE id IN (SELECT id FROM notify_outbox
					WHERE status = 'pending' AND next_at <= $3 AND lease_until <= $3
					ORDER BY id LIMIT $4 FOR UPDATE SKIP LOCKED)
				RETURNING *)
			SELECT `+notificationColumns+`, `+channelColumns+`
			FROM claimed o JOIN notify_channels c ON c.id = o.channel_id LEFT JOIN projects p ON p.id = c.project_id
			ORDER BY o.id`, owner, now+lease.Milliseconds(), now, limit)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var d board.Delivery
			var c store.ChannelRow
			if d.Notification, err = scanNotification(rows, c.Dest()...); err != nil {
				return err
			}
			if d.Channel, err = c.Channel(); err != nil {
				return err
			}
			ds = append(ds, d)
		}
		return rows.Err()
	})
	if err != nil {
		return nil, wrap(err, "claim notifications")
	}
	return ds, nil
}

// SettleNotification records the outcome of owner's attempt.
func (db *DB) SettleNotification(ctx context.Context, id int64, owner string, o board.Outcome) error {
	err := db.inTx(ctx, false, func(tx *tx) error {
		errText := o.Err
		if len(errText) > 1000 {
			errText = errText[:1000] + "…"
		}
		var q string
		var args []any
		switch {
		case o.Sent:
			q = `UPDATE notify_outbox SET status = 'sent', last_error = '', settled_at = $3, lease_owner = '', lease_until = 0
				WHERE id = $1 AND lease_owner = $2 AND status = 'pending'`
			args = []any{id, owner, tx.nowMs()}
		case !o.RetryAt.IsZero():
			q = `UPDATE notify_outbox SET last_error = $3, next_at = $4, lease_owner = '', lease_until = 0
				WHERE id = $1 AND lease_owner = $2 AND status = 'pending'`
			args = []any{id, owner, errText, o.RetryAt.UnixMilli()}
		default:
			q = `UPDATE notify_outbox SET status = 'failed', last_error = $3, settled_at = $4, lease_owner = '', lease_until = 0
				WHERE id = $1 AND lease_owner = $2 AND status = 'pending'`
			args = []any{id, owner, errText, tx.nowMs()}
		}
		res, err := tx.exec(q, args...)
		if err != nil {
			return err
		}
		if res.RowsAffected() == 0 {
			return board.Errorf(board.ECONFLICT, "notification %d is not leased to %s", id, owner)
		}
		return nil
	})
	return wrap(err, "settle notification %d", id)
}

// NoteBlockers records the causes that keep a project's agents from running.
func (db *DB) NoteBlockers(ctx context.Context, projectSlug string, causes []string) (int, error) {
	var added int
	err := db.write(ctx, func(tx *tx) error {
		added = 0
		p, err := getProject(ctx, tx, projectSlug)
		if err != nil {
			return err
		}
		rows, err := tx.Query(ctx, `SELECT cause FROM notify_blockers WHERE project_id = $1`, p.ID)
		if err != nil {
			return err
		}
		var known []string
		for rows.Next() {
			var c string
			if err := rows.Scan(&c); err != nil {
				rows.Close()
				return err
			}
			known = append(known, c)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
		for _, c := range known {
			if !slices.Contains(causes, c) {
				if _, err := tx.exec(`DELETE FROM notify_blockers WHERE project_id = $1 AND cause = $2`, p.ID, c); err != nil {
					return err
				}
			}
		}
		for _, c := range causes {
			if c == "" || slices.Contains(known, c) {
				continue
			}
			known = append(known, c)
			if _, err := tx.exec(`INSERT INTO notify_blockers (project_id, cause, since) VALUES ($1, $2, $3)`, p.ID, c, tx.nowMs()); err != nil {
				return err
			}
			if err := tx.event(board.EventAgentsBlocked, p.ID, "", board.System, map[string]any{"project": p.Slug, "cause": c}); err != nil {
				return err
			}
			added++
		}
		return nil
	})
	if err != nil {
		return 0, wrap(err, "note blockers of %s", projectSlug)
	}
	return added, nil
}
