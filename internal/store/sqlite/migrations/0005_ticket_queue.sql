-- 0005: the queue. One row per project holds the ticket the pick policy
-- chooses there now, with the fields a queue listing shows, kept by triggers
-- on tickets. Reading the queue of 100 projects was 100 seeks into the
-- tickets_pick index, each landing on a page of its own, and 100 more into
-- tickets: about 200 page reads, most of what `bonsai status` spent beyond
-- the binary's start-up. Now it is a handful of pages. A project with
-- nothing to pick has no row.
--
-- Each trigger recomputes its project's row with the tickets_pick seek
-- that Pick used to run per project (so tickets_pick stays), but only when
-- the changed ticket is, or was, pickable: a write to a ticket in BACKLOG,
-- VERIFICATION or DONE, or a blocked one, cannot change the pick.
-- The comments_* triggers of 0001 update tickets.last_human_comment_at,
-- which fires tickets_queue_update in turn.

CREATE TABLE ticket_queue (
    project_id TEXT    PRIMARY KEY REFERENCES projects (id),
    ticket     INTEGER NOT NULL, -- the ticket's rowid
    number     INTEGER NOT NULL,
    title      TEXT    NOT NULL,
    state      TEXT    NOT NULL,
    sub_state  TEXT    NOT NULL,
    priority   INTEGER NOT NULL,
    pick_class INTEGER NOT NULL
) STRICT, WITHOUT ROWID;

INSERT INTO ticket_queue (project_id, ticket, number, title, state, sub_state, priority, pick_class)
    SELECT p.id, t.rowid, t.number, t.title, t.state, t.sub_state, t.priority, t.pick_class
    FROM projects p
    JOIN tickets t ON t.rowid = (
        SELECT c.rowid FROM tickets c
        WHERE c.project_id = p.id AND c.pick_class > 0
        ORDER BY c.pick_class, c.priority, c.pick_key, c.number
        LIMIT 1);

CREATE TRIGGER tickets_queue_insert AFTER INSERT ON tickets
    WHEN NEW.pick_class > 0
BEGIN
    DELETE FROM ticket_queue WHERE project_id = NEW.project_id;
    INSERT INTO ticket_queue (project_id, ticket, number, title, state, sub_state, priority, pick_class)
        SELECT project_id, rowid, number, title, state, sub_state, priority, pick_class FROM tickets
        WHERE project_id = NEW.project_id AND pick_class > 0
        ORDER BY pick_class, priority, pick_key, number
        LIMIT 1;
END;

-- A ticket never changes project, but if one did, both projects' rows
-- would be recomputed.
CREATE TRIGGER tickets_queue_update AFTER UPDATE ON tickets
    WHEN OLD.pick_class > 0 OR NEW.pick_class > 0
BEGIN
    DELETE FROM ticket_queue WHERE project_id IN (OLD.project_id, NEW.project_id);
    INSERT INTO ticket_queue (project_id, ticket, number, title, state, sub_state, priority, pick_class)
        SELECT project_id, rowid, number, title, state, sub_state, priority, pick_class FROM tickets
        WHERE project_id = NEW.project_id AND pick_class > 0
        ORDER BY pick_class, priority, pick_key, number
        LIMIT 1;
    INSERT INTO ticket_queue (project_id, ticket, number, title, state, sub_state, priority, pick_class)
        SELECT project_id, rowid, number, title, state, sub_state, priority, pick_class FROM tickets
        WHERE project_id = OLD.project_id AND pick_class > 0 AND OLD.project_id IS NOT NEW.project_id
        ORDER BY pick_class, priority, pick_key, number
        LIMIT 1;
END;

CREATE TRIGGER tickets_queue_delete AFTER DELETE ON tickets
    WHEN OLD.pick_class > 0
BEGIN
    DELETE FROM ticket_queue WHERE project_id = OLD.project_id;
    INSERT INTO ticket_queue (project_id, ticket, number, title, state, sub_state, priority, pick_class)
        SELECT project_id, rowid, number, title, state, sub_state, priority, pick_class FROM tickets
        WHERE project_id = OLD.project_id AND pick_class > 0
        ORDER BY pick_class, priority, pick_key, number
        LIMIT 1;
END;
