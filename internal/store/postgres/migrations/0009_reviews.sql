-- 0009: SQLite's 0021. The commits of a ticket's branch recorded for
-- review when it reached VERIFICATION (issue 25): what the Changes page
-- shows and what approving lands, read into the runtime's own repository
-- rather than from refs the agent can move.
CREATE TABLE reviews (
    ticket_id   text   PRIMARY KEY REFERENCES tickets (id),
    project_id  text   NOT NULL REFERENCES projects (id),
    base        text   NOT NULL,
    tip         text   NOT NULL,
    recorded_at bigint NOT NULL
);
