-- 0004: the tickets waiting on a person, for `bonsai status` and the web
-- UI. A partial index holds only blocked tickets, so listing them reads a
-- handful of entries instead of every ticket (40 ms on 100 projects × 1,000
-- tickets). The query must say sub_state = 'blocked' literally to use it.

CREATE INDEX tickets_blocked ON tickets (project_id, number) WHERE sub_state = 'blocked';
