-- 0019: workers (issue 18, docs/postgres.md). On a board several machines
-- share, each beat records its worker: one row per data directory of a
-- machine, the newest process that beat there, so `bonsai status` lists
-- a worker that holds no lease too. Rows not seen for a week are dropped
-- by the next record. Derived: `bonsai store migrate` does not copy it.
CREATE TABLE workers (
    host       TEXT    NOT NULL CHECK (host <> ''),
    dir        TEXT    NOT NULL CHECK (dir <> ''),
    id         TEXT    NOT NULL CHECK (id <> ''),
    pid        INTEGER NOT NULL,
    version    TEXT    NOT NULL,
    kind       TEXT    NOT NULL,
    started_at INTEGER NOT NULL,
    seen_at    INTEGER NOT NULL,
    stopped_at INTEGER,
    PRIMARY KEY (host, dir)
) STRICT;

CREATE INDEX workers_seen ON workers (seen_at);
