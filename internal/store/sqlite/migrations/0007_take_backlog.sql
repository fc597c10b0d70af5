-- 0007: projects whose agents take BACKLOG tickets by themselves (docs/design.md
-- §3), as the pick policy's fifth and last class: once nothing in RESEARCH
-- or IN_PROGRESS waits, the oldest most urgent BACKLOG ticket that is not
-- blocked.
--
-- Whether a project takes its backlog is the project's setting, which a
-- column of tickets cannot see. So every BACKLOG ticket that is not blocked
-- gets class 5 in queue_class (pick_class extended), the tickets_pick index
-- and ticket_queue follow queue_class, and the reads (Pick, Overview) drop a
-- class-5 pick unless the project's take_backlog is set. Class 5 sorts last,
-- so a project's ticket_queue row is class 5 only when it has nothing else
-- to pick: dropping it leaves nothing to pick, as the policy says.

ALTER TABLE projects ADD COLUMN take_backlog INTEGER NOT NULL DEFAULT 0 CHECK (take_backlog IN (0, 1));

ALTER TABLE tickets ADD COLUMN queue_class INTEGER GENERATED ALWAYS AS (
    CASE
        WHEN pick_class > 0 THEN pick_class
        WHEN state = 'BACKLOG' AND sub_state <> 'blocked' THEN 5
        ELSE 0
    END) VIRTUAL;

-- oldest backlog first, as research
ALTER TABLE tickets ADD COLUMN queue_key INTEGER GENERATED ALWAYS AS (
    CASE WHEN pick_class > 0 THEN pick_key ELSE created_at END) VIRTUAL;

DROP INDEX tickets_pick;
CREATE INDEX tickets_pick ON tickets (project_id, queue_class, priority, queue_key, number)
    WHERE queue_class > 0;

DROP TRIGGER tickets_queue_insert;
DROP TRIGGER tickets_queue_update;
DROP TRIGGER tickets_queue_delete;

CREATE TRIGGER tickets_queue_insert AFTER INSERT ON tickets
    WHEN NEW.queue_class > 0
BEGIN
    DELETE FROM ticket_queue WHERE project_id = NEW.project_id;
    INSERT INTO ticket_queue (project_id, ticket, number, title, state, sub_state, priority, pick_class)
        SELECT project_id, rowid, number, title, state, sub_state, priority, queue_class FROM tickets
        WHERE project_id = NEW.project_id AND queue_class > 0
        ORDER BY queue_class, priority, queue_key, number
        LIMIT 1;
END;

CREATE TRIGGER tickets_queue_update AFTER UPDATE ON tickets
    WHEN OLD.queue_class > 0 OR NEW.queue_class > 0
BEGIN
    DELETE FROM ticket_queue WHERE project_id IN (OLD.project_id, NEW.project_id);
    INSERT INTO ticket_queue (project_id, ticket, number, title, state, sub_state, priority, pick_class)
        SELECT project_id, rowid, number, title, state, sub_state, priority, queue_class FROM tickets
        WHERE project_id = NEW.project_id AND queue_class > 0
        ORDER BY queue_class, priority, queue_key, number
        LIMIT 1;
    INSERT INTO ticket_queue (project_id, ticket, number, title, state, sub_state, priority, pick_class)
        SELECT project_id, rowid, number, title, state, sub_state, priority, queue_class FROM tickets
        WHERE project_id = OLD.project_id AND queue_class > 0 AND OLD.project_id IS NOT NEW.project_id
        ORDER BY queue_class, priority, queue_key, number
        LIMIT 1;
END;

CREATE TRIGGER tickets_queue_delete AFTER DELETE ON tickets
    WHEN OLD.queue_class > 0
BEGIN
    DELETE FROM ticket_queue WHERE project_id = OLD.project_id;
    INSERT INTO ticket_queue (project_id, ticket, number, title, state, sub_state, priority, pick_class)
        SELECT project_id, rowid, number, title, state, sub_state, priority, queue_class FROM tickets
        WHERE project_id = OLD.project_id AND queue_class > 0
        ORDER BY queue_class, priority, queue_key, number
        LIMIT 1;
END;

DELETE FROM ticket_queue;
INSERT INTO ticket_queue (project_id, ticket, number, title, state, sub_state, priority, pick_class)
    SELECT p.id, t.rowid, t.number, t.title, t.state, t.sub_state, t.priority, t.queue_class
    FROM projects p
    JOIN tickets t ON t.rowid = (
        SELECT c.rowid FROM tickets c
        WHERE c.project_id = p.id AND c.queue_class > 0
        ORDER BY c.queue_class, c.priority, c.queue_key, c.number
        LIMIT 1);
