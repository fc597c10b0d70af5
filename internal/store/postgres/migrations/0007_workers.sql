-- 0007: workers, as SQLite's 0019 (issue 18): one row per data directory
-- of a machine, the newest process that beat there.
CREATE TABLE workers (
    host       text    NOT NULL CHECK (host <> ''),
    dir        text    NOT NULL CHECK (dir <> ''),
    id         text    NOT NULL CHECK (id <> ''),
    pid        bigint  NOT NULL,
    version    text    NOT NULL,
    kind       text    NOT NULL,
    started_at bigint  NOT NULL,
    seen_at    bigint  NOT NULL,
    stopped_at bigint,
    PRIMARY KEY (host, dir)
);

CREATE INDEX workers_seen ON workers (seen_at);
