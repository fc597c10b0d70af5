package sqlstore

import (
	"context"
	"strings"
	"time"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/store"
)

// DefaultNotifications is how many notifications NotificationList returns
// for a limit of 0.
const DefaultNotifications = 50

const channelColumns = `c.id, c.name, c.kind, COALESCE(p.slug, ''), c.kinds, c.settings, c.created_at`

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
		err := tx.expect(false, board.Errorf(board.ECONFLICT, "channel %q already exists; remove it first with 'bonsai notify rm %s'", c.Name, c.Name),
			`SELECT 1 FROM notify_channels WHERE name = ?`, c.Name)
		if err != nil {
			return err
		}
		c.ID, c.CreatedAt = db.newID(), tx.now
		_, err = tx.exec(`INSERT INTO notify_channels (id, name, kind, project_id, kinds, settings, created_at)
			VALUES (?, ?, ?, ?, ?, ?, ?)`, c.ID, c.Name, string(c.Kind), projectID, kinds, settings, tx.nowMs())
		return err
	})
	return result(c, wrap(err, "add channel %s", c.Name))
}

// Channels lists the channels by name.
func (db *DB) Channels(ctx context.Context) ([]board.Channel, error) {
	cs, err := list(ctx, db, func(s scanner) (board.Channel, error) {
		var r store.ChannelRow
		if err := s.Scan(r.Dest()...); err != nil {
			return board.Channel{}, err
		}
		return r.Channel()
	}, `SELECT `+channelColumns+` FROM `+channelFrom+` ORDER BY c.name`)
	return result(cs, wrap(err, "list channels"))
}

// RemoveChannel removes a channel; its notifications go with it.
func (db *DB) RemoveChannel(ctx context.Context, name string) error {
	return wrap(db.inTx(ctx, false, func(tx *tx) error {
		return tx.execOne(board.Errorf(board.ENOTFOUND, "no channel %q; 'bonsai notify list' shows the channels", name),
			`DELETE FROM notify_channels WHERE name = ?`, name)
	}), "remove channel %s", name)
}

const notificationColumns = `o.id, o.channel_id, c.name, o.event_id, o.kind, o.status, o.attempts, o.last_error,
	COALESCE(o.payload ->> 'project', ''), COALESCE(o.payload ->> 'ticket', ''),
	COALESCE(o.payload ->> 'title', ''), COALESCE(o.payload ->> 'text', ''),
	COALESCE(o.payload ->> 'actor', ''), COALESCE(o.payload ->> 'status', ''),
	COALESCE(CAST(o.payload ->> 'costUsd' AS double precision), 0), o.created_at, o.next_at, o.settled_at`

func scanNotification(s scanner, extra ...any) (board.Notification, error) {
	var n board.Notification
	dest := []any{&n.ID, &n.ChannelID, &n.ChannelName, &n.EventID, &n.Kind, &n.Status, &n.Attempts, &n.LastError,
		&n.Project, &n.Ticket, &n.Title, &n.Text, &n.Actor, &n.RunStat, &n.CostUSD, ms{&n.CreatedAt}, ms{&n.NextAt}, msPtr{&n.SettledAt}}
	err := s.Scan(append(dest, extra...)...)
	return n, err
}

// NotificationsPending reports whether a notification waits to be sent.
func (db *DB) NotificationsPending(ctx context.Context) (bool, error) {
	var any bool
	err := db.queryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM notify_outbox WHERE status = 'pending')`).Scan(&any)
	return result(any, wrap(err, "pending notifications"))
}

// NotificationList lists notifications, newest first.
func (db *DB) NotificationList(ctx context.Context, f store.NotificationFilter) ([]board.Notification, error) {
	if f.Limit <= 0 {
		f.Limit = DefaultNotifications
	}
	var where []string
	var args []any
	if f.Channel != "" {
		where, args = append(where, "c.name = ?"), append(args, f.Channel)
	}
	if f.Status != "" {
		where, args = append(where, "o.status = ?"), append(args, string(f.Status))
	}
	q := `SELECT ` + notificationColumns + ` FROM notify_outbox o JOIN notify_channels c ON c.id = o.channel_id`
	if len(where) > 0 {
		q += " WHERE " + strings.Join(where, " AND ")
	}
	scan := func(s scanner) (board.Notification, error) { return scanNotification(s) }
	ns, err := list(ctx, db, scan, q+` ORDER BY o.id DESC LIMIT ?`, append(args, f.Limit)...)
	return result(ns, wrap(err, "list notifications"))
}

// ClaimNotifications leases due pending notifications to owner. The claim
// is one UPDATE … WHERE status = 'pending' AND lease_until <= now, so a row
// is claimed by one owner at a time. It appends no event, so it does not
// take the write order: where writers are not serial the rows are locked
// with Dialect.ForUpdateSkip, so deliverers on several machines claim at
// once, each passing over the rows another is claiming.
func (db *DB) ClaimNotifications(ctx context.Context, owner string, lease time.Duration, limit int) ([]board.Delivery, error) {
	if owner == "" || lease <= 0 || limit <= 0 {
		return nil, board.Errorf(board.EINVALID, "a claim needs an owner, a lease and a limit")
	}
	ds, err := writing(ctx, db, false, func(tx *tx) ([]board.Delivery, error) {
		now := tx.nowMs()
		// Lease due pending rows to owner, and read them.
		ids, err := list(ctx, tx, func(s scanner) (any, error) {
			var id int64
			err := s.Scan(&id)
			return id, err
		}, `UPDATE notify_outbox SET lease_owner = ?, lease_until = ?, attempts = attempts + 1
			WHERE id IN (SELECT id FROM notify_outbox WHERE status = 'pending' AND next_at <= ? AND lease_until <= ?
				ORDER BY id LIMIT ?`+db.forUpdate("", true)+`)
			RETURNING id`, owner, now+lease.Milliseconds(), now, now, limit)
		if err != nil || len(ids) == 0 {
			return nil, err
		}
		return list(ctx, tx, scanDelivery, `SELECT `+notificationColumns+`, `+channelColumns+`
			FROM notify_outbox o JOIN notify_channels c ON c.id = o.channel_id LEFT JOIN projects p ON p.id = c.project_id
			WHERE o.id IN (?`+strings.Repeat(", ?", len(ids)-1)+`) ORDER BY o.id`, ids...)
	})
	return ds, wrap(err, "claim notifications")
}

// scanDelivery reads a row of notificationColumns and channelColumns.
func scanDelivery(s scanner) (board.Delivery, error) {
	var d board.Delivery
	var c store.ChannelRow
	var err error
	if d.Notification, err = scanNotification(s, c.Dest()...); err != nil {
		return d, err
	}
	d.Channel, err = c.Channel()
	return d, err
}

// SettleNotification records the outcome of owner's attempt.
func (db *DB) SettleNotification(ctx context.Context, id int64, owner string, o board.Outcome) error {
	err := db.inTx(ctx, false, func(tx *tx) error {
		// A failure is settled now; a retry stays pending until its time
		// (a NULL next time keeps the row's).
		status, errText, retry := o.Settle()
		next, settled := any(nil), any(tx.nowMs())
		if retry {
			next, settled = o.RetryAt.UnixMilli(), nil
		}
		return tx.execOne(board.Errorf(board.ECONFLICT, "notification %d is not leased to %s", id, owner),
			`UPDATE notify_outbox SET status = ?, last_error = ?, next_at = COALESCE(?, next_at),
			settled_at = ?, lease_owner = '', lease_until = 0 WHERE id = ? AND lease_owner = ? AND status = 'pending'`,
			status, errText, next, settled, id, owner)
	})
	return wrap(err, "settle notification %d", id)
}

// NoteBlockers records the causes that keep a project's agents from running.
func (db *DB) NoteBlockers(ctx context.Context, projectSlug string, causes []string) (int, error) {
	added, err := writing(ctx, db, true, func(tx *tx) (int, error) {
		p, err := getProject(ctx, tx, projectSlug)
		if err != nil {
			return 0, err
		}
		known, err := list(ctx, tx, scanString, `SELECT cause FROM notify_blockers WHERE project_id = ?`, p.ID)
		if err != nil {
			return 0, err
		}
		gone, added := board.BlockerChanges(known, causes)
		for _, c := range gone {
			if _, err := tx.exec(`DELETE FROM notify_blockers WHERE project_id = ? AND cause = ?`, p.ID, c); err != nil {
				return 0, err
			}
		}
		for _, c := range added {
			if _, err := tx.exec(`INSERT INTO notify_blockers (project_id, cause, since) VALUES (?, ?, ?)`, p.ID, c, tx.nowMs()); err != nil {
				return 0, err
			}
			if err := tx.event(board.EventAgentsBlocked, p.ID, "", board.System, map[string]any{"project": p.Slug, "cause": c}); err != nil {
				return 0, err
			}
		}
		return len(added), nil
	})
	return added, wrap(err, "note blockers of %s", projectSlug)
}
