-- 0014: sub-tickets and dependencies, as SQLite's migration ticket_links
-- (docs/store.md, "The pick query"; docs/postgres.md). A link (ticket_id,
-- other_id, kind) says the ticket is blocked by other ('blocked_by') or is
-- a sub-ticket of other ('parent'). A ticket waits, and is not picked,
-- while a blocker or a sub-ticket of it is not DONE: ticket_queue_refresh
-- skips it, with the predicate sqlstore.NotWaiting. The queue is
-- recomputed when a link is added or removed (deleting a ticket deletes
-- its links, which fires the same trigger) and when a ticket others wait
-- for reaches DONE or leaves it. Links never cross projects.

CREATE TABLE ticket_links (
    ticket_id  text   NOT NULL REFERENCES tickets (id) ON DELETE CASCADE,
    other_id   text   NOT NULL REFERENCES tickets (id) ON DELETE CASCADE,
    kind       text   NOT NULL CHECK (kind IN ('blocked_by', 'parent')),
    created_at bigint NOT NULL,
    PRIMARY KEY (ticket_id, kind, other_id),
    CHECK (ticket_id <> other_id)
);

CREATE INDEX ticket_links_other ON ticket_links (other_id, kind, ticket_id);
CREATE UNIQUE INDEX ticket_links_one_parent ON ticket_links (ticket_id) WHERE kind = 'parent';

CREATE OR REPLACE FUNCTION ticket_queue_refresh(pid text) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
    t record;
BEGIN
    SELECT id, number, title, state, sub_state, priority, queue_class,
        description, criteria, plan, branch, created_at, updated_at INTO t FROM tickets tk
    WHERE project_id = pid AND queue_class > 0
        AND NOT EXISTS (SELECT 1 FROM ticket_links wl JOIN tickets wo ON wo.id = wl.other_id
            WHERE wl.ticket_id = tk.id AND wl.kind = 'blocked_by' AND wo.state <> 'DONE')
        AND NOT EXISTS (SELECT 1 FROM ticket_links wl JOIN tickets wo ON wo.id = wl.ticket_id
            WHERE wl.other_id = tk.id AND wl.kind = 'parent' AND wo.state <> 'DONE')
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

-- A ticket others wait for (a blocker, a sub-ticket) reached DONE or left it.
CREATE FUNCTION tickets_queue_waits() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF EXISTS (SELECT 1 FROM ticket_links
            WHERE other_id = NEW.id AND kind = 'blocked_by' OR ticket_id = NEW.id AND kind = 'parent') THEN
        PERFORM ticket_queue_refresh(NEW.project_id);
    END IF;
    RETURN NULL;
END $$;

CREATE TRIGGER tickets_queue_waits AFTER UPDATE OF state ON tickets
    FOR EACH ROW WHEN ((OLD.state = 'DONE') <> (NEW.state = 'DONE'))
    EXECUTE FUNCTION tickets_queue_waits();

-- A link added or removed: the project of either side (when a ticket's
-- deletion removed the link, one side is gone already).
CREATE FUNCTION ticket_links_queue() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    l ticket_links;
    pid text;
BEGIN
    IF TG_OP = 'DELETE' THEN l := OLD; ELSE l := NEW; END IF;
    SELECT project_id INTO pid FROM tickets WHERE id IN (l.ticket_id, l.other_id) LIMIT 1;
    IF FOUND THEN
        PERFORM ticket_queue_refresh(pid);
    END IF;
    RETURN NULL;
END $$;

CREATE TRIGGER ticket_links_queue AFTER INSERT OR DELETE ON ticket_links
    FOR EACH ROW EXECUTE FUNCTION ticket_links_queue();
