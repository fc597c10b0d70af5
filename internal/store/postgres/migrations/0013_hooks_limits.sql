-- 0015: SQLite's 0027. Inbound webhooks (issue 29, docs/webhooks.md): each hook with its
-- secret, sealed by the credentials key before it is stored, and its
-- action; and the delivery log, which also remembers the senders'
-- delivery ids so that a replayed delivery is refused.
CREATE TABLE hooks (
    id          text    PRIMARY KEY,
    name        text    NOT NULL UNIQUE,
    project_id  text    NOT NULL REFERENCES projects (id),
    scheme      text    NOT NULL,
    header      text    NOT NULL,
    secret      text    NOT NULL,
    action      text    NOT NULL,
    target      text    NOT NULL,
    events      text    NOT NULL,
    conditions  text    NOT NULL,
    title       text    NOT NULL,
    description text    NOT NULL,
    criteria    text    NOT NULL,
    priority    bigint  NOT NULL,
    start_state text    NOT NULL,
    created_at  bigint  NOT NULL,
    updated_at  bigint  NOT NULL
);

CREATE TABLE hook_deliveries (
    id          bigint  GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    hook_id     text    NOT NULL REFERENCES hooks (id) ON DELETE CASCADE,
    delivery_id text    NOT NULL,
    event       text    NOT NULL,
    status      bigint  NOT NULL,
    outcome     text    NOT NULL,
    detail      text    NOT NULL,
    ticket      bigint  NOT NULL,
    size        bigint  NOT NULL,
    received_at bigint  NOT NULL,
    finished_at bigint  NOT NULL
);

-- A delivery id is received once per hook: the replay guard.
CREATE UNIQUE INDEX hook_deliveries_once ON hook_deliveries (hook_id, delivery_id) WHERE delivery_id <> '';
CREATE INDEX hook_deliveries_hook ON hook_deliveries (hook_id, id);

-- What the sync keeps of a tracker account across beats (docs/trackers.md):
-- its rate limit (nothing is asked before limited_until, 0 for none) and
-- the token's own login, read once per token (token_sum, a digest).
CREATE TABLE tracker_limits (
    project_id text    PRIMARY KEY REFERENCES projects (id),
    tracker    text    NOT NULL,
    limited_until bigint  NOT NULL,
    detail     text    NOT NULL,
    login      text    NOT NULL,
    token_sum  text    NOT NULL,
    updated_at bigint  NOT NULL
);
