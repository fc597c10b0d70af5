-- 0002: ticket counts per project and state, kept by triggers, so that
-- `bonsai status` and the web UI's project list read a few hundred rows
-- instead of counting every ticket (30 ms on 100 projects × 1,000 tickets).

CREATE TABLE ticket_counts (
    project_id TEXT    NOT NULL REFERENCES projects (id),
    state      TEXT    NOT NULL,
    n          INTEGER NOT NULL,
    PRIMARY KEY (project_id, state)
) STRICT, WITHOUT ROWID;

INSERT INTO ticket_counts (project_id, state, n)
    SELECT project_id, state, count(*) FROM tickets GROUP BY project_id, state;

CREATE TRIGGER tickets_count_insert AFTER INSERT ON tickets
BEGIN
    INSERT INTO ticket_counts (project_id, state, n) VALUES (NEW.project_id, NEW.state, 1)
        ON CONFLICT (project_id, state) DO UPDATE SET n = n + 1;
END;

CREATE TRIGGER tickets_count_update AFTER UPDATE OF project_id, state ON tickets
    WHEN OLD.project_id IS NOT NEW.project_id OR OLD.state IS NOT NEW.state
BEGIN
    UPDATE ticket_counts SET n = n - 1 WHERE project_id = OLD.project_id AND state = OLD.state;
    INSERT INTO ticket_counts (project_id, state, n) VALUES (NEW.project_id, NEW.state, 1)
        ON CONFLICT (project_id, state) DO UPDATE SET n = n + 1;
END;

CREATE TRIGGER tickets_count_delete AFTER DELETE ON tickets
BEGIN
    UPDATE ticket_counts SET n = n - 1 WHERE project_id = OLD.project_id AND state = OLD.state;
END;
