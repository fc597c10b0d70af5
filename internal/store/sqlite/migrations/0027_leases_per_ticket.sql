-- Leases per ticket (issue 31; to be numbered 0028 after the session's
-- other migrations). A project's agents may work several tickets at once
-- (its maxAgents setting), so a lease is keyed by its ticket: never two
-- leases, so never two runs, on one ticket. AcquireLease counts the
-- project's leases against the setting.
CREATE TABLE leases_by_ticket (
    ticket_id   TEXT    PRIMARY KEY REFERENCES tickets (id),
    project_id  TEXT    NOT NULL REFERENCES projects (id),
    worker      TEXT    NOT NULL CHECK (worker <> ''),
    acquired_at INTEGER NOT NULL,
    expires_at  INTEGER NOT NULL
) STRICT;

INSERT INTO leases_by_ticket (ticket_id, project_id, worker, acquired_at, expires_at)
    SELECT ticket_id, project_id, worker, acquired_at, expires_at FROM leases;
DROP TABLE leases;
ALTER TABLE leases_by_ticket RENAME TO leases;

CREATE INDEX leases_project ON leases (project_id);
