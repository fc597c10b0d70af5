-- 0004: leases, as SQLite's 0015 (issue 18). The primary key is the
-- project: one lease, so one agent, per project across machines.
CREATE TABLE leases (
    project_id  text    PRIMARY KEY REFERENCES projects (id),
    ticket_id   text    NOT NULL REFERENCES tickets (id),
    worker      text    NOT NULL CHECK (worker <> ''),
    acquired_at bigint  NOT NULL,
    expires_at  bigint  NOT NULL
);

CREATE INDEX leases_ticket ON leases (ticket_id);
CREATE INDEX leases_expires ON leases (expires_at);
