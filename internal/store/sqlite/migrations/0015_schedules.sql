-- 0015: scheduled work (issue 16, docs/schedules.md).
--
-- A schedule is a ticket template that fires on time. next_fire is when it
-- fires next (unix ms; NULL when never again); a firing moves it on with a
-- compare-and-set on its old value, so two beats never fire it twice.
CREATE TABLE schedules (
    id            TEXT    PRIMARY KEY,
    project_id    TEXT    NOT NULL REFERENCES projects (id),
    name          TEXT    NOT NULL,
    kind          TEXT    NOT NULL CHECK (kind IN ('cron', 'every', 'at')),
    expr          TEXT    NOT NULL,
    timezone      TEXT    NOT NULL,
    anchor        INTEGER NOT NULL DEFAULT 0,
    title         TEXT    NOT NULL,
    description   TEXT    NOT NULL DEFAULT '',
    criteria      TEXT    NOT NULL DEFAULT '[]' CHECK (json_type(criteria) = 'array'),
    priority      INTEGER NOT NULL,
    start_state   TEXT    NOT NULL CHECK (start_state IN ('BACKLOG', 'RESEARCH', 'IN_PROGRESS')),
    pre_check     TEXT    NOT NULL DEFAULT '',
    overlap       TEXT    NOT NULL DEFAULT 'skip' CHECK (overlap IN ('skip', 'always')),
    paused        INTEGER NOT NULL DEFAULT 0 CHECK (paused IN (0, 1)),
    next_fire     INTEGER,
    failures      INTEGER NOT NULL DEFAULT 0,
    last_error    TEXT    NOT NULL DEFAULT '',
    last_ticket_id TEXT   NOT NULL DEFAULT '',
    created_by    TEXT    NOT NULL,
    created_at    INTEGER NOT NULL,
    updated_at    INTEGER NOT NULL,
    UNIQUE (project_id, name)
) STRICT;

-- The beat's query: schedules due now, not paused. An idle beat reads one
-- index range that is empty.
CREATE INDEX schedules_due ON schedules (next_fire, id) WHERE paused = 0 AND next_fire IS NOT NULL;

-- Each firing: a ticket made, a skip, or a failed pre-check.
CREATE TABLE schedule_firings (
    id          INTEGER PRIMARY KEY AUTOINCREMENT,
    schedule_id TEXT    NOT NULL REFERENCES schedules (id) ON DELETE CASCADE,
    due_at      INTEGER NOT NULL,
    fired_at    INTEGER NOT NULL,
    outcome     TEXT    NOT NULL CHECK (outcome IN ('created', 'overlap', 'asleep', 'failed')),
    ticket_id   TEXT    NOT NULL DEFAULT '',
    detail      TEXT    NOT NULL DEFAULT ''
) STRICT;

CREATE INDEX schedule_firings_schedule ON schedule_firings (schedule_id, id);

-- The first pre-check failure of a streak notifies a person.
INSERT INTO notify_rules (event_type, actor, data_path, data_value, notify_kind) VALUES
    ('schedule.failed', '', '$.failures', '1', 'run_failed');
