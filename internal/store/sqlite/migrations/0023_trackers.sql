-- 0023: A project's issue tracker as its inbox (issue 29): where each
-- project's sync stands (the conditional list's validator, the last
-- failure), which ticket each issue became (with its comment cursor and
-- the state last shown there), and the tracker comments delivered to a
-- ticket or posted from it, so that none is delivered twice or read back.
CREATE TABLE tracker_syncs (
    project_id TEXT    PRIMARY KEY REFERENCES projects (id),
    tracker    TEXT    NOT NULL,
    query      TEXT    NOT NULL,
    validator  TEXT    NOT NULL,
    error      TEXT    NOT NULL,
    failures   INTEGER NOT NULL,
    updated_at INTEGER NOT NULL
) STRICT;

CREATE TABLE issue_links (
    ticket_id  TEXT    PRIMARY KEY REFERENCES tickets (id),
    project_id TEXT    NOT NULL REFERENCES projects (id),
    tracker    TEXT    NOT NULL,
    issue_id   TEXT    NOT NULL,
    issue_ref  TEXT    NOT NULL,
    url        TEXT    NOT NULL,
    comment_cursor TEXT NOT NULL,
    seen       TEXT    NOT NULL,
    mirrored   TEXT    NOT NULL,
    status     TEXT    NOT NULL,
    since      INTEGER NOT NULL,
    updated_at INTEGER NOT NULL,
    UNIQUE (project_id, tracker, issue_id)
) STRICT;

-- direction: 'in' for a tracker comment delivered to the ticket, 'out'
-- for a ticket comment posted to the issue.
CREATE TABLE issue_comments (
    ticket_id   TEXT    NOT NULL REFERENCES tickets (id),
    direction   TEXT    NOT NULL,
    external_id TEXT    NOT NULL,
    comment_id  TEXT    NOT NULL,
    created_at  INTEGER NOT NULL,
    PRIMARY KEY (ticket_id, direction, external_id)
) STRICT;
CREATE INDEX issue_comments_comment ON issue_comments (ticket_id, comment_id);
