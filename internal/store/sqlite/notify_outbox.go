package sqlite

// notifyOutbox fans the event with the given id out to the notification
// outbox: one row per channel whose rules want it (docs/notifications.md).
// tx.event runs it in the transaction that appends the event, so a
// notification exists exactly when its event does. The rules are data
// (notify_rules): an event type no rule names inserts nothing.
const notifyOutbox = `INSERT INTO notify_outbox (channel_id, event_id, kind, payload, next_at, created_at)
SELECT c.id, e.id, r.notify_kind,
    json_object(
        'project', (SELECT slug FROM projects WHERE id = e.project_id),
        'ticket', (SELECT p.slug || '#' || t.number FROM tickets t JOIN projects p ON p.id = t.project_id
                   WHERE t.id = e.ticket_id),
        'title', (SELECT title FROM tickets WHERE id = e.ticket_id),
        'text', COALESCE(
            (SELECT content FROM comments WHERE id = json_extract(e.data, '$.commentId')),
            json_extract(e.data, '$.error'),
            json_extract(e.data, '$.cause'),
            (SELECT 'Command: ' || command FROM approvals WHERE id = json_extract(e.data, '$.approvalId')),
            ''),
        'status', json_extract(e.data, '$.status'),
        'costUsd', json_extract(e.data, '$.costUsd'),
        'actor', e.actor),
    e.created_at, e.created_at
FROM events e JOIN notify_rules r ON r.event_type = e.type JOIN notify_channels c
WHERE e.id = ?
  AND (r.actor = '' OR r.actor = e.actor)
  AND (r.data_path = '' OR json_extract(e.data, r.data_path) = r.data_value)
  AND (c.project_id = '' OR c.project_id = e.project_id)
  AND (c.kinds = '[]' OR EXISTS (SELECT 1 FROM json_each(c.kinds) WHERE value = r.notify_kind))`
