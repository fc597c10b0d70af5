-- 0017: leases (issue 18, docs/postgres.md). A worker holds a lease on the
-- ticket its agent works, renews it while the agent runs and releases it
-- at the end; a lease past expires_at is ended by ExpireLeases, which
-- marks its worker's run interrupted. The primary key is the project: one
-- lease, so one agent, per project, whichever machine runs it.
CREATE TABLE leases (
    project_id  TEXT    PRIMARY KEY REFERENCES projects (id),
    ticket_id   TEXT    NOT NULL REFERENCES tickets (id),
    worker      TEXT    NOT NULL CHECK (worker <> ''),
    acquired_at INTEGER NOT NULL,
    expires_at  INTEGER NOT NULL
) STRICT;
