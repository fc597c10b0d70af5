-- 0011: SQLite's 0023. A project's issue tracker as its inbox (issue 29): where each
-- project's sync stands (the conditional list's validator, the last
-- failure), which ticket each issue became (with its comment cursor and
-- the state last shown there), and the tracker comments delivered to a
-- ticket or posted from it, so that none is delivered twice or read back.
CREATE TABLE tracker_syncs (
    project_id text    PRIMARY KEY REFERENCES projects (id),
    tracker    text    NOT NULL,
    query      text    NOT NULL,
    validator  text    NOT NULL,
    error      text    NOT NULL,
    failures   bigint  NOT NULL,
    updated_at bigint  NOT NULL
);

CREATE TABLE issue_links (
    ticket_id  text    PRIMARY KEY REFERENCES tickets (id),
    project_id text    NOT NULL REFERENCES projects (id),
    tracker    text    NOT NULL,
    issue_id   text    NOT NULL,
    issue_ref  text    NOT NULL,
    url        text    NOT NULL,
    comment_cursor text NOT NULL,
    seen       text    NOT NULL,
    mirrored   text    NOT NULL,
    status     text    NOT NULL,
    since      bigint  NOT NULL,
    updated_at bigint  NOT NULL,
    UNIQUE (project_id, tracker, issue_id)
);

-- direction: 'in' for a tracker comment delivered to the ticket, 'out'
-- for a ticket comment posted to the issue.
CREATE TABLE issue_comments (
    ticket_id   text    NOT NULL REFERENCES tickets (id),
    direction   text    NOT NULL,
    external_id text    NOT NULL,
    comment_id  text    NOT NULL,
    created_at  bigint  NOT NULL,
    PRIMARY KEY (ticket_id, direction, external_id)
);
CREATE INDEX issue_comments_comment ON issue_comments (ticket_id, comment_id);
