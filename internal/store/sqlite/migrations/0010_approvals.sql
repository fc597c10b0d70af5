-- 0010: approvals (issue 12). A command the command policy held for a
-- person in a heartbeat run, and the person's decision (board.Approval).
CREATE TABLE approvals (
    id         TEXT    PRIMARY KEY,
    project_id TEXT    NOT NULL REFERENCES projects (id),
    ticket_id  TEXT    NOT NULL REFERENCES tickets (id),
    run_id     TEXT    NOT NULL DEFAULT '',
    -- the exact command line; "always" grants match it byte for byte
    command    TEXT    NOT NULL CHECK (command <> ''),
    rule       TEXT    NOT NULL DEFAULT '',
    reason     TEXT    NOT NULL DEFAULT '',
    -- the Allow pattern "always" adds to the project, '' for none
    pattern    TEXT    NOT NULL DEFAULT '',
    status     TEXT    NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'allowed', 'denied')),
    always     INTEGER NOT NULL DEFAULT 0 CHECK (always IN (0, 1) AND (always = 0 OR status = 'allowed')),
    -- a once-only approval that let its command run
    used       INTEGER NOT NULL DEFAULT 0 CHECK (used IN (0, 1)),
    note       TEXT    NOT NULL DEFAULT '',
    decided_by TEXT    NOT NULL DEFAULT '',
    -- the agent was told the decision
    told       INTEGER NOT NULL DEFAULT 0 CHECK (told IN (0, 1)),
    comment_id TEXT    NOT NULL DEFAULT '',
    created_at INTEGER NOT NULL,
    decided_at INTEGER
) STRICT;

CREATE INDEX approvals_ticket ON approvals (ticket_id, created_at);

-- GrantedApproval's project-wide look-up: only "always" grants are in it.
CREATE INDEX approvals_always ON approvals (project_id, command)
    WHERE status = 'allowed' AND always = 1;
