-- 0012: notifications off the machine (issue 13, docs/notifications.md).
--
-- A channel is where notifications go: its kind, the project it listens to
-- ('' for every project), the notification kinds it wants ('[]' for every
-- kind) and its settings as JSON (URL, secret, SMTP server...).
CREATE TABLE notify_channels (
    id         TEXT    PRIMARY KEY,
    name       TEXT    NOT NULL UNIQUE,
    kind       TEXT    NOT NULL
        CHECK (kind IN ('webhook', 'ntfy', 'slack', 'discord', 'email', 'desktop')),
    project_id TEXT    NOT NULL DEFAULT '',
    kinds      TEXT    NOT NULL DEFAULT '[]' CHECK (json_type(kinds) = 'array'),
    settings   TEXT    NOT NULL DEFAULT '{}' CHECK (json_type(settings) = 'object'),
    created_at INTEGER NOT NULL
) STRICT;

-- Which events notify, as rows, so a later migration plugs a new event in
-- with one INSERT: an event of event_type whose actor is actor ('' for any)
-- and whose data at data_path equals data_value (data_path '' for always)
-- becomes a notification of kind notify_kind.
CREATE TABLE notify_rules (
    event_type  TEXT NOT NULL,
    actor       TEXT NOT NULL DEFAULT '',
    data_path   TEXT NOT NULL DEFAULT '',
    data_value  TEXT NOT NULL DEFAULT '',
    notify_kind TEXT NOT NULL,
    PRIMARY KEY (event_type, actor, data_path, data_value)
) STRICT;

INSERT INTO notify_rules (event_type, actor, data_path, data_value, notify_kind) VALUES
    ('comment.added',  'agent', '$.kind',   'question',        'question'),
    ('approval.requested', '',  '',         '',                'approval'),
    ('ticket.moved',   '',      '$.to',     'VERIFICATION',    'review'),
    ('run.finished',   '',      '$.status', 'error',           'run_failed'),
    ('run.finished',   '',      '$.status', 'timeout',         'run_failed'),
    ('run.finished',   '',      '$.status', 'budget_exceeded', 'budget'),
    ('agents.blocked', '',      '',         '',                'blocked');

-- The outbox: one row per notification and channel, written by the trigger
-- below in the transaction that appends the event, so a notification
-- exists exactly when its event does. Whichever process delivers next
-- claims a row (lease_owner, lease_until), sends it and settles it: sent,
-- pending again at next_at, or failed after too many attempts.
CREATE TABLE notify_outbox (
    id          INTEGER PRIMARY KEY AUTOINCREMENT,
    channel_id  TEXT    NOT NULL REFERENCES notify_channels (id) ON DELETE CASCADE,
    event_id    INTEGER NOT NULL,
    kind        TEXT    NOT NULL,
    -- what the message says, captured when the event happened
    payload     TEXT    NOT NULL CHECK (json_type(payload) = 'object'),
    status      TEXT    NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'sent', 'failed')),
    attempts    INTEGER NOT NULL DEFAULT 0,
    next_at     INTEGER NOT NULL,
    lease_owner TEXT    NOT NULL DEFAULT '',
    lease_until INTEGER NOT NULL DEFAULT 0,
    last_error  TEXT    NOT NULL DEFAULT '',
    created_at  INTEGER NOT NULL,
    settled_at  INTEGER
) STRICT;

CREATE INDEX notify_outbox_due ON notify_outbox (status, next_at);
CREATE INDEX notify_outbox_channel ON notify_outbox (channel_id, id);

CREATE TRIGGER events_notify AFTER INSERT ON events
WHEN EXISTS (SELECT 1 FROM notify_rules WHERE event_type = NEW.type)
BEGIN
    INSERT INTO notify_outbox (channel_id, event_id, kind, payload, next_at, created_at)
    SELECT c.id, NEW.id, r.notify_kind,
        json_object(
            'project', (SELECT slug FROM projects WHERE id = NEW.project_id),
            'ticket', (SELECT p.slug || '#' || t.number FROM tickets t JOIN projects p ON p.id = t.project_id
                       WHERE t.id = NEW.ticket_id),
            'title', (SELECT title FROM tickets WHERE id = NEW.ticket_id),
            'text', COALESCE(
                (SELECT content FROM comments WHERE id = json_extract(NEW.data, '$.commentId')),
                json_extract(NEW.data, '$.error'),
                json_extract(NEW.data, '$.cause'),
                (SELECT 'Command: ' || command FROM approvals WHERE id = json_extract(NEW.data, '$.approvalId')),
                ''),
            'status', json_extract(NEW.data, '$.status'),
            'costUsd', json_extract(NEW.data, '$.costUsd'),
            'actor', NEW.actor),
        NEW.created_at, NEW.created_at
    FROM notify_rules r JOIN notify_channels c
    WHERE r.event_type = NEW.type
      AND (r.actor = '' OR r.actor = NEW.actor)
      AND (r.data_path = '' OR json_extract(NEW.data, r.data_path) = r.data_value)
      AND (c.project_id = '' OR c.project_id = NEW.project_id)
      AND (c.kinds = '[]' OR EXISTS (SELECT 1 FROM json_each(c.kinds) WHERE value = r.notify_kind));
END;

-- The causes that keep a project's agents from running, as last noted, so
-- each cause notifies once (an agents.blocked event) and not every beat.
CREATE TABLE notify_blockers (
    project_id TEXT    NOT NULL,
    cause      TEXT    NOT NULL,
    since      INTEGER NOT NULL,
    PRIMARY KEY (project_id, cause)
) STRICT;
