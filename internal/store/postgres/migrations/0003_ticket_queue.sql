-- 0003: the queue, as SQLite's migration 0005 keeps it: one row per
-- project holding the ticket the pick policy chooses there now, with the
-- fields a queue listing shows, kept by a trigger on tickets. The pick
-- seek per project at read time cost Overview 100 index seeks and 100
-- ticket reads on 100 projects (4.3 ms on a loaded machine, against 0.6
-- for SQLite's table); the table is a few pages. A project with nothing
-- to pick has no row. Like SQLite's, it holds BACKLOG tickets (class 5)
-- for every project, and the reads drop them where the project does not
-- take its backlog.

CREATE TABLE ticket_queue (
    project_id  text    PRIMARY KEY REFERENCES projects (id),
    ticket_id   text    NOT NULL,
    number      integer NOT NULL,
    title       text    NOT NULL,
    state       text    NOT NULL,
    sub_state   text    NOT NULL,
    priority    integer NOT NULL,
    queue_class integer NOT NULL
);

-- ticket_queue_refresh recomputes one project's row with the seek into
-- tickets_pick. It updates the row in place when there is one (a HOT
-- update: no index changes, no dead index entries).
CREATE FUNCTION ticket_queue_refresh(pid text) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
    t record;
BEGIN
    SELECT id, number, title, state, sub_state, priority, queue_class INTO t FROM tickets
    WHERE project_id = pid AND queue_class > 0
    ORDER BY queue_class, priority, queue_key, number
    LIMIT 1;
    IF NOT FOUND THEN
        DELETE FROM ticket_queue WHERE project_id = pid;
        RETURN;
    END IF;
    INSERT INTO ticket_queue (project_id, ticket_id, number, title, state, sub_state, priority, queue_class)
    VALUES (pid, t.id, t.number, t.title, t.state, t.sub_state, t.priority, t.queue_class)
    ON CONFLICT (project_id) DO UPDATE SET ticket_id = excluded.ticket_id, number = excluded.number,
        title = excluded.title, state = excluded.state, sub_state = excluded.sub_state,
        priority = excluded.priority, queue_class = excluded.queue_class;
END $$;

-- Only a ticket that is, or was, pickable can change its project's pick.
-- The comments trigger of 0001 updates tickets.last_human_comment_at,
-- which fires this one in turn.
CREATE FUNCTION tickets_queue() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP IN ('UPDATE', 'DELETE') AND OLD.queue_class > 0 THEN
        PERFORM ticket_queue_refresh(OLD.project_id);
    END IF;
    IF TG_OP IN ('INSERT', 'UPDATE') AND NEW.queue_class > 0
        AND NOT (TG_OP = 'UPDATE' AND OLD.queue_class > 0 AND OLD.project_id = NEW.project_id) THEN
        PERFORM ticket_queue_refresh(NEW.project_id);
    END IF;
    RETURN NULL;
END $$;

CREATE TRIGGER tickets_queue AFTER INSERT OR UPDATE OR DELETE ON tickets
    FOR EACH ROW EXECUTE FUNCTION tickets_queue();

INSERT INTO ticket_queue (project_id, ticket_id, number, title, state, sub_state, priority, queue_class)
    SELECT DISTINCT ON (project_id) project_id, id, number, title, state, sub_state, priority, queue_class
    FROM tickets WHERE queue_class > 0
    ORDER BY project_id, queue_class, priority, queue_key, number;
