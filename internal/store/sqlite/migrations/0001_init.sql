-- 0001: the board. Times are INTEGER unix milliseconds (UTC); criteria and
-- event data are JSON text. Tables are STRICT so a wrong type is an error,
-- not a silent conversion.

CREATE TABLE projects (
    id                 TEXT    PRIMARY KEY,
    slug               TEXT    NOT NULL UNIQUE,
    name               TEXT    NOT NULL,
    repo               TEXT    NOT NULL,
    default_branch     TEXT    NOT NULL,
    active             INTEGER NOT NULL DEFAULT 1 CHECK (active IN (0, 1)),
    model              TEXT    NOT NULL DEFAULT '',
    budget_usd         REAL    NOT NULL DEFAULT 0,
    verify             TEXT    NOT NULL DEFAULT '',
    -- the number given to the project's newest ticket; CreateTicket
    -- increments it in the same transaction that inserts the ticket
    last_ticket_number INTEGER NOT NULL DEFAULT 0,
    created_at         INTEGER NOT NULL,
    updated_at         INTEGER NOT NULL
) STRICT;

CREATE TABLE tickets (
    id          TEXT    PRIMARY KEY,
    project_id  TEXT    NOT NULL REFERENCES projects (id),
    number      INTEGER NOT NULL,
    title       TEXT    NOT NULL,
    description TEXT    NOT NULL DEFAULT '',
    criteria    TEXT    NOT NULL DEFAULT '[]',
    plan        TEXT    NOT NULL DEFAULT '',
    state       TEXT    NOT NULL
        CHECK (state IN ('BACKLOG', 'RESEARCH', 'IN_PROGRESS', 'VERIFICATION', 'DONE')),
    sub_state   TEXT    NOT NULL DEFAULT ''
        CHECK (sub_state IN ('', 'blocked', 'returned')),
    priority    INTEGER NOT NULL CHECK (priority BETWEEN 0 AND 4),
    branch      TEXT    NOT NULL DEFAULT '',
    created_at  INTEGER NOT NULL,
    updated_at  INTEGER NOT NULL,
    -- newest unresolved human comment, NULL when there is none; kept by the
    -- comments_* triggers below, never written by application code
    last_human_comment_at INTEGER,
    -- the pick class of board.Classify (0 = not pickable) and the order
    -- inside the class as one ascending key; see docs/store.md
    pick_class  INTEGER GENERATED ALWAYS AS (
        CASE
            WHEN sub_state = 'blocked' THEN 0
            WHEN state IN ('RESEARCH', 'IN_PROGRESS') AND last_human_comment_at IS NOT NULL THEN 1
            WHEN state = 'IN_PROGRESS' AND sub_state = 'returned' THEN 2
            WHEN state = 'IN_PROGRESS' THEN 3
            WHEN state = 'RESEARCH' THEN 4
            ELSE 0
        END) VIRTUAL,
    pick_key    INTEGER GENERATED ALWAYS AS (
        CASE pick_class
            WHEN 1 THEN -last_human_comment_at -- newest human comment first
            WHEN 2 THEN -updated_at            -- newest returned first
            WHEN 3 THEN updated_at             -- least recently updated first
            ELSE created_at                    -- oldest research first
        END) VIRTUAL,
    UNIQUE (project_id, number)
) STRICT;

CREATE INDEX tickets_state ON tickets (state, project_id);

-- Pick reads one entry of this index per project: only pickable tickets are
-- in it, already in pick order.
CREATE INDEX tickets_pick ON tickets (project_id, pick_class, priority, pick_key, number)
    WHERE pick_class > 0;

CREATE TABLE comments (
    id          TEXT    PRIMARY KEY,
    ticket_id   TEXT    NOT NULL REFERENCES tickets (id),
    author_type TEXT    NOT NULL CHECK (author_type IN ('human', 'agent', 'system')),
    author_name TEXT    NOT NULL DEFAULT '',
    kind        TEXT    NOT NULL,
    content     TEXT    NOT NULL,
    resolved    INTEGER NOT NULL DEFAULT 0 CHECK (resolved IN (0, 1)),
    created_at  INTEGER NOT NULL
) STRICT;

CREATE INDEX comments_ticket ON comments (ticket_id, created_at);

CREATE INDEX comments_unresolved_human ON comments (ticket_id, created_at)
    WHERE author_type = 'human' AND resolved = 0;

-- The triggers keep tickets.last_human_comment_at equal to the newest
-- unresolved human comment, whoever writes the comments table.
CREATE TRIGGER comments_after_insert AFTER INSERT ON comments
    WHEN NEW.author_type = 'human' AND NEW.resolved = 0
BEGIN
    UPDATE tickets SET last_human_comment_at = (
        SELECT max(created_at) FROM comments
        WHERE ticket_id = NEW.ticket_id AND author_type = 'human' AND resolved = 0)
    WHERE id = NEW.ticket_id;
END;

CREATE TRIGGER comments_after_update AFTER UPDATE OF ticket_id, author_type, resolved, created_at ON comments
BEGIN
    UPDATE tickets SET last_human_comment_at = (
        SELECT max(created_at) FROM comments
        WHERE ticket_id = tickets.id AND author_type = 'human' AND resolved = 0)
    WHERE id IN (OLD.ticket_id, NEW.ticket_id);
END;

CREATE TRIGGER comments_after_delete AFTER DELETE ON comments
BEGIN
    UPDATE tickets SET last_human_comment_at = (
        SELECT max(created_at) FROM comments
        WHERE ticket_id = OLD.ticket_id AND author_type = 'human' AND resolved = 0)
    WHERE id = OLD.ticket_id;
END;

CREATE TABLE runs (
    id                 TEXT    PRIMARY KEY,
    ticket_id          TEXT    NOT NULL REFERENCES tickets (id),
    project_id         TEXT    NOT NULL REFERENCES projects (id),
    task               TEXT    NOT NULL,
    status             TEXT    NOT NULL,
    session_key        TEXT    NOT NULL,
    started_at         INTEGER NOT NULL,
    finished_at        INTEGER,
    input_tokens       INTEGER NOT NULL DEFAULT 0,
    output_tokens      INTEGER NOT NULL DEFAULT 0,
    cache_read_tokens  INTEGER NOT NULL DEFAULT 0,
    cache_write_tokens INTEGER NOT NULL DEFAULT 0,
    cost_usd           REAL    NOT NULL DEFAULT 0,
    error              TEXT    NOT NULL DEFAULT '',
    worker_id          TEXT    NOT NULL DEFAULT ''
) STRICT;

CREATE INDEX runs_ticket ON runs (ticket_id, started_at);
CREATE INDEX runs_started ON runs (started_at);
CREATE INDEX runs_running ON runs (status) WHERE status = 'running';

-- The append-only log. AUTOINCREMENT guarantees ids are never reused, so a
-- reader's cursor (the last id it saw) stays valid forever.
CREATE TABLE events (
    id         INTEGER PRIMARY KEY AUTOINCREMENT,
    type       TEXT    NOT NULL,
    project_id TEXT    NOT NULL DEFAULT '',
    ticket_id  TEXT    NOT NULL DEFAULT '',
    actor      TEXT    NOT NULL,
    data       TEXT,
    created_at INTEGER NOT NULL
) STRICT;

CREATE TRIGGER events_no_update BEFORE UPDATE ON events
BEGIN
    SELECT RAISE(ABORT, 'events are append-only');
END;

CREATE TRIGGER events_no_delete BEFORE DELETE ON events
BEGIN
    SELECT RAISE(ABORT, 'events are append-only');
END;
