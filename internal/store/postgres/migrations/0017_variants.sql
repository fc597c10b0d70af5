-- Best of N, as SQLite's migration variants (docs/heartbeat.md,
-- "Variants"): each variant is a ticket of its own (variant_id) tied to
-- the ticket compared (ticket_id), which is blocked by its variants while
-- they run. round counts the ticket's best of N runs, number is the
-- variant's place in it, budget_usd and budget_tokens its share of the
-- ticket's caps; state is running until a person chooses one.

CREATE TABLE variants (
    ticket_id     text             NOT NULL REFERENCES tickets (id) ON DELETE CASCADE,
    round         bigint           NOT NULL CHECK (round > 0),
    number        bigint           NOT NULL CHECK (number > 0),
    variant_id    text             NOT NULL UNIQUE REFERENCES tickets (id) ON DELETE CASCADE,
    engine        text             NOT NULL,
    model         text             NOT NULL,
    budget_usd    double precision NOT NULL DEFAULT 0,
    budget_tokens bigint           NOT NULL DEFAULT 0,
    state         text             NOT NULL CHECK (state IN ('running', 'chosen', 'closed', 'failed')),
    reason        text             NOT NULL DEFAULT '',
    created_at    bigint           NOT NULL,
    updated_at    bigint           NOT NULL,
    PRIMARY KEY (ticket_id, round, number),
    CHECK (ticket_id <> variant_id)
);

CREATE INDEX variants_running ON variants (ticket_id) WHERE state = 'running';
