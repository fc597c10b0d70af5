-- 0001: the whole board as SQLite's migrations 0001–0013 left it, in
-- Postgres terms. Times are bigint unix milliseconds (UTC), as in SQLite,
-- so the two stores hold the same values and a board copies between them
-- unchanged. Lists and settings are JSON text, event data json (kept as
-- written), the outbox payload jsonb. The seq columns give rows written in
-- the same millisecond the order SQLite's rowid gives them. Slugs and
-- channel names sort bytewise (COLLATE "C"), as in SQLite, whatever the
-- database's locale.

CREATE TABLE projects (
    id                 text    PRIMARY KEY,
    slug               text    COLLATE "C" NOT NULL UNIQUE,
    name               text    NOT NULL,
    repo               text    NOT NULL,
    default_branch     text    NOT NULL,
    active             boolean NOT NULL DEFAULT true,
    model              text    NOT NULL DEFAULT '',
    budget_usd         double precision NOT NULL DEFAULT 0,
    verify             text    NOT NULL DEFAULT '',
    last_ticket_number integer NOT NULL DEFAULT 0,
    created_at         bigint  NOT NULL,
    updated_at         bigint  NOT NULL,
    ticket_tokens      bigint  NOT NULL DEFAULT 0,
    run_budget_usd     double precision NOT NULL DEFAULT 0,
    run_tokens         bigint  NOT NULL DEFAULT 0,
    daily_budget_usd   double precision NOT NULL DEFAULT 0,
    daily_tokens       bigint  NOT NULL DEFAULT 0,
    take_backlog       boolean NOT NULL DEFAULT false,
    permission_mode    text    NOT NULL DEFAULT ''
        CHECK (permission_mode IN ('', 'plan', 'ask', 'read-only')),
    allow_commands     text    NOT NULL DEFAULT '[]' CHECK (json_typeof(allow_commands::json) = 'array'),
    ask_commands       text    NOT NULL DEFAULT '[]' CHECK (json_typeof(ask_commands::json) = 'array'),
    allow_hosts        text    NOT NULL DEFAULT '[]' CHECK (json_typeof(allow_hosts::json) = 'array'),
    sandbox            text    NOT NULL DEFAULT '' CHECK (sandbox IN ('', 'off')),
    network            text    NOT NULL DEFAULT '' CHECK (network IN ('', 'none', 'all'))
);

CREATE TABLE tickets (
    id          text    PRIMARY KEY,
    project_id  text    NOT NULL REFERENCES projects (id),
    number      integer NOT NULL,
    title       text    NOT NULL,
    description text    NOT NULL DEFAULT '',
    criteria    text    NOT NULL DEFAULT '[]',
    plan        text    NOT NULL DEFAULT '',
    state       text    NOT NULL
        CHECK (state IN ('BACKLOG', 'RESEARCH', 'IN_PROGRESS', 'VERIFICATION', 'DONE')),
    sub_state   text    NOT NULL DEFAULT ''
        CHECK (sub_state IN ('', 'blocked', 'returned')),
    priority    integer NOT NULL CHECK (priority BETWEEN 0 AND 4),
    branch      text    NOT NULL DEFAULT '',
    created_at  bigint  NOT NULL,
    updated_at  bigint  NOT NULL,
    -- newest unresolved human comment, NULL when none; kept by the
    -- comments trigger below, never written by application code
    last_human_comment_at bigint,
    -- the pick policy per ticket (board.Classify, and the BACKLOG class 5
    -- of projects that take their backlog): 0 = not pickable. Postgres
    -- generated columns cannot read each other, so each spells the
    -- classification out.
    queue_class integer GENERATED ALWAYS AS (
        CASE
            WHEN sub_state = 'blocked' THEN 0
            WHEN state IN ('RESEARCH', 'IN_PROGRESS') AND last_human_comment_at IS NOT NULL THEN 1
            WHEN state = 'IN_PROGRESS' AND sub_state = 'returned' THEN 2
            WHEN state = 'IN_PROGRESS' THEN 3
            WHEN state = 'RESEARCH' THEN 4
            WHEN state = 'BACKLOG' THEN 5
            ELSE 0
        END) STORED,
    -- the order inside the class, ascending
    queue_key   bigint GENERATED ALWAYS AS (
        CASE
            WHEN sub_state = 'blocked' THEN created_at
            WHEN state IN ('RESEARCH', 'IN_PROGRESS') AND last_human_comment_at IS NOT NULL THEN -last_human_comment_at
            WHEN state = 'IN_PROGRESS' AND sub_state = 'returned' THEN -updated_at
            WHEN state = 'IN_PROGRESS' THEN updated_at
            ELSE created_at
        END) STORED,
    UNIQUE (project_id, number)
);

CREATE INDEX tickets_state ON tickets (state, project_id);
-- Pick reads the first entry of this index per project.
CREATE INDEX tickets_pick ON tickets (project_id, queue_class, priority, queue_key, number)
    WHERE queue_class > 0;
CREATE INDEX tickets_blocked ON tickets (project_id, number) WHERE sub_state = 'blocked';

CREATE TABLE comments (
    id          text    PRIMARY KEY,
    seq         bigint  GENERATED ALWAYS AS IDENTITY,
    ticket_id   text    NOT NULL REFERENCES tickets (id),
    author_type text    NOT NULL CHECK (author_type IN ('human', 'agent', 'system')),
    author_name text    NOT NULL DEFAULT '',
    kind        text    NOT NULL,
    content     text    NOT NULL,
    resolved    boolean NOT NULL DEFAULT false,
    created_at  bigint  NOT NULL
);

CREATE INDEX comments_ticket ON comments (ticket_id, created_at, seq);
CREATE INDEX comments_unresolved_human ON comments (ticket_id, created_at)
    WHERE author_type = 'human' AND NOT resolved;

-- Keeps tickets.last_human_comment_at equal to the newest unresolved
-- human comment, whoever writes the comments table.
CREATE FUNCTION comments_last_human() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP IN ('UPDATE', 'DELETE') THEN
        UPDATE tickets SET last_human_comment_at = (
            SELECT max(created_at) FROM comments
            WHERE ticket_id = OLD.ticket_id AND author_type = 'human' AND NOT resolved)
        WHERE id = OLD.ticket_id;
    END IF;
    IF TG_OP IN ('INSERT', 'UPDATE') AND (TG_OP = 'UPDATE' OR (NEW.author_type = 'human' AND NOT NEW.resolved)) THEN
        UPDATE tickets SET last_human_comment_at = (
            SELECT max(created_at) FROM comments
            WHERE ticket_id = NEW.ticket_id AND author_type = 'human' AND NOT resolved)
        WHERE id = NEW.ticket_id;
    END IF;
    RETURN NULL;
END $$;

CREATE TRIGGER comments_last_human AFTER INSERT OR DELETE OR UPDATE OF ticket_id, author_type, resolved, created_at
    ON comments FOR EACH ROW EXECUTE FUNCTION comments_last_human();

CREATE TABLE runs (
    id                 text    PRIMARY KEY,
    seq                bigint  GENERATED ALWAYS AS IDENTITY,
    ticket_id          text    NOT NULL REFERENCES tickets (id),
    ticket_number      integer NOT NULL DEFAULT 0,
    project_id         text    NOT NULL REFERENCES projects (id),
    task               text    NOT NULL,
    status             text    NOT NULL,
    session_key        text    NOT NULL,
    started_at         bigint  NOT NULL,
    finished_at        bigint,
    input_tokens       bigint  NOT NULL DEFAULT 0,
    output_tokens      bigint  NOT NULL DEFAULT 0,
    cache_read_tokens  bigint  NOT NULL DEFAULT 0,
    cache_write_tokens bigint  NOT NULL DEFAULT 0,
    cost_usd           double precision NOT NULL DEFAULT 0,
    error              text    NOT NULL DEFAULT '',
    worker_id          text    NOT NULL DEFAULT '',
    progress           text    NOT NULL DEFAULT '' CHECK (progress IN ('', 'none', 'made')),
    stop_requested_at  bigint,
    stop_requested_by  text    NOT NULL DEFAULT ''
);

CREATE INDEX runs_ticket ON runs (ticket_id, started_at, seq);
CREATE INDEX runs_started ON runs (started_at, seq);
CREATE INDEX runs_project ON runs (project_id, started_at);
CREATE INDEX runs_running ON runs (started_at, seq) WHERE status = 'running';

-- The append-only log. Identity values are never reused. Writers append
-- under the store's write lock (see tx.go), so events commit in id order
-- and a reader's cursor misses nothing.
CREATE TABLE events (
    id         bigint  GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    type       text    NOT NULL,
    project_id text    NOT NULL DEFAULT '',
    ticket_id  text    NOT NULL DEFAULT '',
    actor      text    NOT NULL,
    data       json,
    created_at bigint  NOT NULL
);

CREATE FUNCTION events_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'events are append-only';
END $$;

CREATE TRIGGER events_no_change BEFORE UPDATE OR DELETE ON events
    FOR EACH ROW EXECUTE FUNCTION events_append_only();
CREATE TRIGGER events_no_truncate BEFORE TRUNCATE ON events
    FOR EACH STATEMENT EXECUTE FUNCTION events_append_only();

-- Ticket counts per project and state, kept by a trigger on tickets, so
-- TicketCounts and Overview read a row per project and state.
CREATE TABLE ticket_counts (
    project_id text    NOT NULL REFERENCES projects (id),
    state      text    NOT NULL,
    n          integer NOT NULL,
    PRIMARY KEY (project_id, state)
);

CREATE FUNCTION tickets_count() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'UPDATE' AND OLD.project_id = NEW.project_id AND OLD.state = NEW.state THEN
        RETURN NULL;
    END IF;
    IF TG_OP IN ('UPDATE', 'DELETE') THEN
        UPDATE ticket_counts SET n = n - 1 WHERE project_id = OLD.project_id AND state = OLD.state;
    END IF;
    IF TG_OP IN ('INSERT', 'UPDATE') THEN
        INSERT INTO ticket_counts (project_id, state, n) VALUES (NEW.project_id, NEW.state, 1)
            ON CONFLICT (project_id, state) DO UPDATE SET n = ticket_counts.n + 1;
    END IF;
    RETURN NULL;
END $$;

CREATE TRIGGER tickets_count AFTER INSERT OR DELETE OR UPDATE OF project_id, state
    ON tickets FOR EACH ROW EXECUTE FUNCTION tickets_count();

CREATE TABLE approvals (
    id         text    PRIMARY KEY,
    seq        bigint  GENERATED ALWAYS AS IDENTITY,
    project_id text    NOT NULL REFERENCES projects (id),
    ticket_id  text    NOT NULL REFERENCES tickets (id),
    run_id     text    NOT NULL DEFAULT '',
    command    text    NOT NULL CHECK (command <> ''),
    rule       text    NOT NULL DEFAULT '',
    reason     text    NOT NULL DEFAULT '',
    pattern    text    NOT NULL DEFAULT '',
    status     text    NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'allowed', 'denied')),
    always     boolean NOT NULL DEFAULT false CHECK (NOT always OR status = 'allowed'),
    used       boolean NOT NULL DEFAULT false,
    note       text    NOT NULL DEFAULT '',
    decided_by text    NOT NULL DEFAULT '',
    told       boolean NOT NULL DEFAULT false,
    comment_id text    NOT NULL DEFAULT '',
    created_at bigint  NOT NULL,
    decided_at bigint
);

CREATE INDEX approvals_ticket ON approvals (ticket_id, created_at, seq);
CREATE INDEX approvals_always ON approvals (project_id, command) WHERE status = 'allowed' AND always;

CREATE TABLE notify_channels (
    id         text    PRIMARY KEY,
    name       text    COLLATE "C" NOT NULL UNIQUE,
    kind       text    NOT NULL
        CHECK (kind IN ('webhook', 'ntfy', 'slack', 'discord', 'email', 'desktop')),
    project_id text    NOT NULL DEFAULT '',
    kinds      jsonb   NOT NULL DEFAULT '[]' CHECK (jsonb_typeof(kinds) = 'array'),
    settings   jsonb   NOT NULL DEFAULT '{}' CHECK (jsonb_typeof(settings) = 'object'),
    created_at bigint  NOT NULL
);

-- Which events notify: an event of event_type whose actor is actor ('' for
-- any) and whose data field data_key equals data_value (data_key '' for
-- always) becomes a notification of kind notify_kind.
CREATE TABLE notify_rules (
    event_type  text NOT NULL,
    actor       text NOT NULL DEFAULT '',
    data_key    text NOT NULL DEFAULT '',
    data_value  text NOT NULL DEFAULT '',
    notify_kind text NOT NULL,
    PRIMARY KEY (event_type, actor, data_key, data_value)
);

INSERT INTO notify_rules (event_type, actor, data_key, data_value, notify_kind) VALUES
    ('comment.added',  'agent', 'kind',   'question',        'question'),
    ('approval.requested', '',  '',       '',                'approval'),
    ('ticket.moved',   '',      'to',     'VERIFICATION',    'review'),
    ('run.finished',   '',      'status', 'error',           'run_failed'),
    ('run.finished',   '',      'status', 'timeout',         'run_failed'),
    ('run.finished',   '',      'status', 'budget_exceeded', 'budget'),
    ('agents.blocked', '',      '',       '',                'blocked');

-- The outbox, filled by the events_notify trigger in the transaction that
-- appends the event. Deliverers claim rows with FOR UPDATE SKIP LOCKED and
-- a lease (lease_owner, lease_until).
CREATE TABLE notify_outbox (
    id          bigint  GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    channel_id  text    NOT NULL REFERENCES notify_channels (id) ON DELETE CASCADE,
    event_id    bigint  NOT NULL,
    kind        text    NOT NULL,
    payload     jsonb   NOT NULL CHECK (jsonb_typeof(payload) = 'object'),
    status      text    NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'sent', 'failed')),
    attempts    integer NOT NULL DEFAULT 0,
    next_at     bigint  NOT NULL,
    lease_owner text    NOT NULL DEFAULT '',
    lease_until bigint  NOT NULL DEFAULT 0,
    last_error  text    NOT NULL DEFAULT '',
    created_at  bigint  NOT NULL,
    settled_at  bigint
);

CREATE INDEX notify_outbox_due ON notify_outbox (status, next_at);
CREATE INDEX notify_outbox_channel ON notify_outbox (channel_id, id);

CREATE FUNCTION events_notify() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    d jsonb := NEW.data::jsonb;
BEGIN
    IF NOT EXISTS (SELECT 1 FROM notify_rules WHERE event_type = NEW.type) THEN
        RETURN NULL;
    END IF;
    INSERT INTO notify_outbox (channel_id, event_id, kind, payload, next_at, created_at)
    SELECT c.id, NEW.id, r.notify_kind,
        jsonb_build_object(
            'project', (SELECT slug FROM projects WHERE id = NEW.project_id),
            'ticket', (SELECT p.slug || '#' || t.number FROM tickets t JOIN projects p ON p.id = t.project_id
                       WHERE t.id = NEW.ticket_id),
            'title', (SELECT title FROM tickets WHERE id = NEW.ticket_id),
            'text', COALESCE(
                (SELECT content FROM comments WHERE id = d ->> 'commentId'),
                d ->> 'error',
                d ->> 'cause',
                (SELECT 'Command: ' || command FROM approvals WHERE id = d ->> 'approvalId'),
                ''),
            'status', d -> 'status',
            'costUsd', d -> 'costUsd',
            'actor', NEW.actor),
        NEW.created_at, NEW.created_at
    FROM notify_rules r CROSS JOIN notify_channels c
    WHERE r.event_type = NEW.type
      AND (r.actor = '' OR r.actor = NEW.actor)
      AND (r.data_key = '' OR d ->> r.data_key = r.data_value)
      AND (c.project_id = '' OR c.project_id = NEW.project_id)
      AND (c.kinds = '[]'::jsonb OR c.kinds ? r.notify_kind);
    RETURN NULL;
END $$;

CREATE TRIGGER events_notify AFTER INSERT ON events FOR EACH ROW EXECUTE FUNCTION events_notify();

CREATE TABLE notify_blockers (
    project_id text    NOT NULL,
    cause      text    NOT NULL,
    since      bigint  NOT NULL,
    PRIMARY KEY (project_id, cause)
);
