-- Best of N (docs/heartbeat.md, "Variants"): a ticket run N ways at once.
-- Each variant is a ticket of its own (variant_id: its worktree, branch,
-- runs, transcript and review record are that ticket's), tied here to the
-- ticket compared (ticket_id), which is blocked by its variants while they
-- run (ticket_links). round counts the ticket's best of N runs and number
-- is the variant's place in its round. budget_usd and budget_tokens are
-- its share of the ticket's caps. state is running until a person chooses
-- one (chosen) and the others are closed, or failed with the reason.

CREATE TABLE variants (
    ticket_id     TEXT    NOT NULL REFERENCES tickets (id) ON DELETE CASCADE,
    round         INTEGER NOT NULL CHECK (round > 0),
    number        INTEGER NOT NULL CHECK (number > 0),
    variant_id    TEXT    NOT NULL UNIQUE REFERENCES tickets (id) ON DELETE CASCADE,
    engine        TEXT    NOT NULL,
    model         TEXT    NOT NULL,
    budget_usd    REAL    NOT NULL DEFAULT 0,
    budget_tokens INTEGER NOT NULL DEFAULT 0,
    state         TEXT    NOT NULL CHECK (state IN ('running', 'chosen', 'closed', 'failed')),
    reason        TEXT    NOT NULL DEFAULT '',
    created_at    INTEGER NOT NULL,
    updated_at    INTEGER NOT NULL,
    PRIMARY KEY (ticket_id, round, number),
    CHECK (ticket_id <> variant_id)
) STRICT;

-- the variants of a ticket still in flight
CREATE INDEX variants_running ON variants (ticket_id) WHERE state = 'running';
