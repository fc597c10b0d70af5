-- 0026: sub-tickets and dependencies (docs/store.md, "The pick query").
-- A link (ticket_id, other_id, kind) says the ticket is blocked by other
-- ('blocked_by') or is a sub-ticket of other ('parent'). A ticket waits,
-- and is not picked, while a blocker of it or a sub-ticket of it is not
-- DONE: the queue's seek below skips such tickets. The links live in a
-- table of their own, so nothing that reads tickets changes; the
-- predicate is sqlstore.NotWaiting, which other queries share.
--
-- The queue must be recomputed whenever a ticket's waiting can change:
-- a link added or removed (the ticket_links triggers), and a blocker or a
-- sub-ticket reaching DONE or leaving it (tickets_queue_waits). Deleting
-- a ticket deletes its links (ON DELETE CASCADE), which fires the
-- ticket_links trigger in turn. Links never cross projects (the store
-- refuses them), so each change recomputes one project's row.

CREATE TABLE ticket_links (
    ticket_id  TEXT    NOT NULL REFERENCES tickets (id) ON DELETE CASCADE,
    other_id   TEXT    NOT NULL REFERENCES tickets (id) ON DELETE CASCADE,
    kind       TEXT    NOT NULL CHECK (kind IN ('blocked_by', 'parent')),
    created_at INTEGER NOT NULL,
    PRIMARY KEY (ticket_id, kind, other_id),
    CHECK (ticket_id <> other_id)
) STRICT;

-- the tickets that wait for a ticket, and a parent's sub-tickets
CREATE INDEX ticket_links_other ON ticket_links (other_id, kind, ticket_id);

-- a ticket has one parent at most
CREATE UNIQUE INDEX ticket_links_one_parent ON ticket_links (ticket_id) WHERE kind = 'parent';

DROP TRIGGER tickets_queue_insert;
DROP TRIGGER tickets_queue_update;
DROP TRIGGER tickets_queue_delete;

CREATE TRIGGER tickets_queue_insert AFTER INSERT ON tickets
    WHEN NEW.queue_class > 0
BEGIN
    DELETE FROM ticket_queue WHERE project_id = NEW.project_id;
    INSERT INTO ticket_queue (project_id, ticket, number, title, state, sub_state, priority, pick_class)
        SELECT project_id, rowid, number, title, state, sub_state, priority, queue_class FROM tickets t
        WHERE project_id = NEW.project_id AND queue_class > 0
        AND NOT EXISTS (SELECT 1 FROM ticket_links l JOIN tickets o ON o.id = l.other_id
            WHERE l.ticket_id = t.id AND l.kind = 'blocked_by' AND o.state <> 'DONE')
        AND NOT EXISTS (SELECT 1 FROM ticket_links l JOIN tickets o ON o.id = l.ticket_id
            WHERE l.other_id = t.id AND l.kind = 'parent' AND o.state <> 'DONE')
        ORDER BY queue_class, priority, queue_key, number
        LIMIT 1;
END;

CREATE TRIGGER tickets_queue_update AFTER UPDATE ON tickets
    WHEN OLD.queue_class > 0 OR NEW.queue_class > 0
BEGIN
    DELETE FROM ticket_queue WHERE project_id IN (OLD.project_id, NEW.project_id);
    INSERT INTO ticket_queue (project_id, ticket, number, title, state, sub_state, priority, pick_class)
        SELECT project_id, rowid, number, title, state, sub_state, priority, queue_class FROM tickets t
        WHERE project_id = NEW.project_id AND queue_class > 0
        AND NOT EXISTS (SELECT 1 FROM ticket_links l JOIN tickets o ON o.id = l.other_id
            WHERE l.ticket_id = t.id AND l.kind = 'blocked_by' AND o.state <> 'DONE')
        AND NOT EXISTS (SELECT 1 FROM ticket_links l JOIN tickets o ON o.id = l.ticket_id
            WHERE l.other_id = t.id AND l.kind = 'parent' AND o.state <> 'DONE')
        ORDER BY queue_class, priority, queue_key, number
        LIMIT 1;
    INSERT INTO ticket_queue (project_id, ticket, number, title, state, sub_state, priority, pick_class)
        SELECT project_id, rowid, number, title, state, sub_state, priority, queue_class FROM tickets t
        WHERE project_id = OLD.project_id AND queue_class > 0 AND OLD.project_id IS NOT NEW.project_id
        AND NOT EXISTS (SELECT 1 FROM ticket_links l JOIN tickets o ON o.id = l.other_id
            WHERE l.ticket_id = t.id AND l.kind = 'blocked_by' AND o.state <> 'DONE')
        AND NOT EXISTS (SELECT 1 FROM ticket_links l JOIN tickets o ON o.id = l.ticket_id
            WHERE l.other_id = t.id AND l.kind = 'parent' AND o.state <> 'DONE')
        ORDER BY queue_class, priority, queue_key, number
        LIMIT 1;
END;

CREATE TRIGGER tickets_queue_delete AFTER DELETE ON tickets
    WHEN OLD.queue_class > 0
BEGIN
    DELETE FROM ticket_queue WHERE project_id = OLD.project_id;
    INSERT INTO ticket_queue (project_id, ticket, number, title, state, sub_state, priority, pick_class)
        SELECT project_id, rowid, number, title, state, sub_state, priority, queue_class FROM tickets t
        WHERE project_id = OLD.project_id AND queue_class > 0
        AND NOT EXISTS (SELECT 1 FROM ticket_links l JOIN tickets o ON o.id = l.other_id
            WHERE l.ticket_id = t.id AND l.kind = 'blocked_by' AND o.state <> 'DONE')
        AND NOT EXISTS (SELECT 1 FROM ticket_links l JOIN tickets o ON o.id = l.ticket_id
            WHERE l.other_id = t.id AND l.kind = 'parent' AND o.state <> 'DONE')
        ORDER BY queue_class, priority, queue_key, number
        LIMIT 1;
END;

-- A blocker or a sub-ticket reached DONE or left it: the tickets waiting
-- for it may have become pickable, or stopped being so.
CREATE TRIGGER tickets_queue_waits AFTER UPDATE OF state ON tickets
    WHEN (OLD.state = 'DONE') <> (NEW.state = 'DONE')
        AND EXISTS (SELECT 1 FROM ticket_links
            WHERE other_id = NEW.id AND kind = 'blocked_by' OR ticket_id = NEW.id AND kind = 'parent')
BEGIN
    DELETE FROM ticket_queue WHERE project_id = NEW.project_id;
    INSERT INTO ticket_queue (project_id, ticket, number, title, state, sub_state, priority, pick_class)
        SELECT project_id, rowid, number, title, state, sub_state, priority, queue_class FROM tickets t
        WHERE project_id = NEW.project_id AND queue_class > 0
        AND NOT EXISTS (SELECT 1 FROM ticket_links l JOIN tickets o ON o.id = l.other_id
            WHERE l.ticket_id = t.id AND l.kind = 'blocked_by' AND o.state <> 'DONE')
        AND NOT EXISTS (SELECT 1 FROM ticket_links l JOIN tickets o ON o.id = l.ticket_id
            WHERE l.other_id = t.id AND l.kind = 'parent' AND o.state <> 'DONE')
        ORDER BY queue_class, priority, queue_key, number
        LIMIT 1;
END;

CREATE TRIGGER ticket_links_queue_insert AFTER INSERT ON ticket_links
BEGIN
    DELETE FROM ticket_queue WHERE project_id = (SELECT project_id FROM tickets WHERE id = NEW.ticket_id);
    INSERT INTO ticket_queue (project_id, ticket, number, title, state, sub_state, priority, pick_class)
        SELECT project_id, rowid, number, title, state, sub_state, priority, queue_class FROM tickets t
        WHERE project_id = (SELECT project_id FROM tickets WHERE id = NEW.ticket_id) AND queue_class > 0
        AND NOT EXISTS (SELECT 1 FROM ticket_links l JOIN tickets o ON o.id = l.other_id
            WHERE l.ticket_id = t.id AND l.kind = 'blocked_by' AND o.state <> 'DONE')
        AND NOT EXISTS (SELECT 1 FROM ticket_links l JOIN tickets o ON o.id = l.ticket_id
            WHERE l.other_id = t.id AND l.kind = 'parent' AND o.state <> 'DONE')
        ORDER BY queue_class, priority, queue_key, number
        LIMIT 1;
END;

-- When a ticket's deletion removed the link, one side is gone already;
-- the other tells the project.
CREATE TRIGGER ticket_links_queue_delete AFTER DELETE ON ticket_links
BEGIN
    DELETE FROM ticket_queue WHERE project_id = (SELECT project_id FROM tickets WHERE id IN (OLD.ticket_id, OLD.other_id) LIMIT 1);
    INSERT INTO ticket_queue (project_id, ticket, number, title, state, sub_state, priority, pick_class)
        SELECT project_id, rowid, number, title, state, sub_state, priority, queue_class FROM tickets t
        WHERE project_id = (SELECT project_id FROM tickets WHERE id IN (OLD.ticket_id, OLD.other_id) LIMIT 1) AND queue_class > 0
        AND NOT EXISTS (SELECT 1 FROM ticket_links l JOIN tickets o ON o.id = l.other_id
            WHERE l.ticket_id = t.id AND l.kind = 'blocked_by' AND o.state <> 'DONE')
        AND NOT EXISTS (SELECT 1 FROM ticket_links l JOIN tickets o ON o.id = l.ticket_id
            WHERE l.other_id = t.id AND l.kind = 'parent' AND o.state <> 'DONE')
        ORDER BY queue_class, priority, queue_key, number
        LIMIT 1;
END;
