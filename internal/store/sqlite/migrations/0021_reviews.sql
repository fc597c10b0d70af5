-- 0021: the commits of a ticket's branch recorded for review when it
-- reached VERIFICATION (issue 25): what the Changes page shows and what
-- approving lands, read into the runtime's own repository rather than
-- from refs the agent can move.
CREATE TABLE reviews (
    ticket_id   TEXT    PRIMARY KEY REFERENCES tickets (id),
    project_id  TEXT    NOT NULL REFERENCES projects (id),
    base        TEXT    NOT NULL,
    tip         TEXT    NOT NULL,
    recorded_at INTEGER NOT NULL
) STRICT;
