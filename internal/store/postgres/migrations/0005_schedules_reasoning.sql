-- 0005: SQLite's 0015 and 0016. Schedules (issue 16, docs/schedules.md):
-- a ticket template that fires on time. next_fire is when it fires next
-- (unix ms; NULL when never again); a firing moves it on with a
-- compare-and-set on its old value, so two beats never fire it twice.
-- And the thinking tokens of a run (issue 17), part of output_tokens.
-- The task kind "conflict" (issue 14) needs nothing: runs.task has no
-- CHECK here, as in SQLite.

CREATE TABLE schedules (
    id             text    PRIMARY KEY,
    project_id     text    NOT NULL REFERENCES projects (id),
    name           text    COLLATE "C" NOT NULL,
    kind           text    NOT NULL CHECK (kind IN ('cron', 'every', 'at')),
    expr           text    NOT NULL,
    timezone       text    NOT NULL,
    anchor         bigint  NOT NULL DEFAULT 0,
    title          text    NOT NULL,
    description    text    NOT NULL DEFAULT '',
    criteria       text    NOT NULL DEFAULT '[]' CHECK (json_typeof(criteria::json) = 'array'),
    priority       integer NOT NULL,
    start_state    text    NOT NULL CHECK (start_state IN ('BACKLOG', 'RESEARCH', 'IN_PROGRESS')),
    pre_check      text    NOT NULL DEFAULT '',
    overlap        text    NOT NULL DEFAULT 'skip' CHECK (overlap IN ('skip', 'always')),
    paused         boolean NOT NULL DEFAULT false,
    next_fire      bigint,
    failures       integer NOT NULL DEFAULT 0,
    last_error     text    NOT NULL DEFAULT '',
    last_ticket_id text    NOT NULL DEFAULT '',
    created_by     text    NOT NULL,
    created_at     bigint  NOT NULL,
    updated_at     bigint  NOT NULL,
    UNIQUE (project_id, name)
);

-- The beat's query: schedules due now, not paused. An idle beat reads one
-- index range that is empty.
CREATE INDEX schedules_due ON schedules (next_fire, id) WHERE NOT paused AND next_fire IS NOT NULL;

-- Each firing: a ticket made, a skip, or a failed pre-check.
CREATE TABLE schedule_firings (
    id          bigint  GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    schedule_id text    NOT NULL REFERENCES schedules (id) ON DELETE CASCADE,
    due_at      bigint  NOT NULL,
    fired_at    bigint  NOT NULL,
    outcome     text    NOT NULL CHECK (outcome IN ('created', 'overlap', 'asleep', 'failed')),
    ticket_id   text    NOT NULL DEFAULT '',
    detail      text    NOT NULL DEFAULT ''
);

CREATE INDEX schedule_firings_schedule ON schedule_firings (schedule_id, id);

-- The first pre-check failure of a streak notifies a person.
INSERT INTO notify_rules (event_type, actor, data_key, data_value, notify_kind) VALUES
    ('schedule.failed', '', 'failures', '1', 'run_failed');

ALTER TABLE runs ADD COLUMN reasoning_tokens bigint NOT NULL DEFAULT 0;
