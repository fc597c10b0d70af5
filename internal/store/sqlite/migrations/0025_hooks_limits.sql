-- Inbound webhooks (issue 29, docs/webhooks.md) and trackers' rate limits: each hook with its
-- secret, sealed by the credentials key before it is stored, and its
-- action; and the delivery log, which also remembers the senders'
-- delivery ids so that a replayed delivery is refused.
CREATE TABLE hooks (
    id          TEXT    PRIMARY KEY,
    name        TEXT    NOT NULL UNIQUE,
    project_id  TEXT    NOT NULL REFERENCES projects (id),
    scheme      TEXT    NOT NULL,
    header      TEXT    NOT NULL,
    secret      TEXT    NOT NULL,
    action      TEXT    NOT NULL,
    target      TEXT    NOT NULL,
    events      TEXT    NOT NULL,
    conditions  TEXT    NOT NULL,
    title       TEXT    NOT NULL,
    description TEXT    NOT NULL,
    criteria    TEXT    NOT NULL,
    priority    INTEGER NOT NULL,
    start_state TEXT    NOT NULL,
    created_at  INTEGER NOT NULL,
    updated_at  INTEGER NOT NULL
) STRICT;

CREATE TABLE hook_deliveries (
    id          INTEGER PRIMARY KEY AUTOINCREMENT,
    hook_id     TEXT    NOT NULL REFERENCES hooks (id) ON DELETE CASCADE,
    delivery_id TEXT    NOT NULL,
    event       TEXT    NOT NULL,
    status      INTEGER NOT NULL,
    outcome     TEXT    NOT NULL,
    detail      TEXT    NOT NULL,
    ticket      INTEGER NOT NULL,
    size        INTEGER NOT NULL,
    received_at INTEGER NOT NULL,
    finished_at INTEGER NOT NULL
) STRICT;

-- A delivery id is received once per hook: the replay guard.
CREATE UNIQUE INDEX hook_deliveries_once ON hook_deliveries (hook_id, delivery_id) WHERE delivery_id <> '';
CREATE INDEX hook_deliveries_hook ON hook_deliveries (hook_id, id);

-- What the sync keeps of a tracker account across beats (docs/trackers.md):
-- its rate limit (nothing is asked before limited_until, 0 for none) and
-- the token's own login, read once per token (token_sum, a digest).
CREATE TABLE tracker_limits (
    project_id TEXT    PRIMARY KEY REFERENCES projects (id),
    tracker    TEXT    NOT NULL,
    limited_until INTEGER NOT NULL,
    detail     TEXT    NOT NULL,
    login      TEXT    NOT NULL,
    token_sum  TEXT    NOT NULL,
    updated_at INTEGER NOT NULL
) STRICT;
