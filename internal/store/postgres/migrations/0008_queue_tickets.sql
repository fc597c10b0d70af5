-- 0008: the queue holds its tickets whole (issue 18: the pick's speed
-- target). Pick joined each ticket_queue row to its ticket by primary key:
-- 100 index descents and 100 heap pages on 100 projects, most of the
-- pick's 0.35 ms on the server when idle and of its 2 ms on a loaded
-- machine. With every column of the ticket in its row, Pick reads the few
-- pages of projects and ticket_queue alone. The trigger already rewrites
-- a project's row whenever a pickable ticket of it changes, and the picked
-- ticket is pickable, so the copy is never stale. The refresh now writes
-- only when the row changes: most changes to a pickable ticket leave the
-- project's pick as it was.

TRUNCATE ticket_queue;

ALTER TABLE ticket_queue
    ADD COLUMN description text   NOT NULL,
    ADD COLUMN criteria    text   NOT NULL,
    ADD COLUMN plan        text   NOT NULL,
    ADD COLUMN branch      text   NOT NULL,
    ADD COLUMN created_at  bigint NOT NULL,
    ADD COLUMN updated_at  bigint NOT NULL;

CREATE OR REPLACE FUNCTION ticket_queue_refresh(pid text) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
    t record;
BEGIN
    SELECT id, number, title, state, sub_state, priority, queue_class,
        description, criteria, plan, branch, created_at, updated_at INTO t FROM tickets
    WHERE project_id = pid AND queue_class > 0
    ORDER BY queue_class, priority, queue_key, number
    LIMIT 1;
    IF NOT FOUND THEN
        DELETE FROM ticket_queue WHERE project_id = pid;
        RETURN;
    END IF;
    INSERT INTO ticket_queue AS q (project_id, ticket_id, number, title, state, sub_state, priority, queue_class,
        description, criteria, plan, branch, created_at, updated_at)
    VALUES (pid, t.id, t.number, t.title, t.state, t.sub_state, t.priority, t.queue_class,
        t.description, t.criteria, t.plan, t.branch, t.created_at, t.updated_at)
    ON CONFLICT (project_id) DO UPDATE SET ticket_id = excluded.ticket_id, number = excluded.number,
        title = excluded.title, state = excluded.state, sub_state = excluded.sub_state,
        priority = excluded.priority, queue_class = excluded.queue_class,
        description = excluded.description, criteria = excluded.criteria, plan = excluded.plan,
        branch = excluded.branch, created_at = excluded.created_at, updated_at = excluded.updated_at
    WHERE (q.*) IS DISTINCT FROM (excluded.*);
END $$;

INSERT INTO ticket_queue (project_id, ticket_id, number, title, state, sub_state, priority, queue_class,
        description, criteria, plan, branch, created_at, updated_at)
    SELECT DISTINCT ON (project_id) project_id, id, number, title, state, sub_state, priority, queue_class,
        description, criteria, plan, branch, created_at, updated_at
    FROM tickets WHERE queue_class > 0
    ORDER BY project_id, queue_class, priority, queue_key, number;
