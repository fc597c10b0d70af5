-- 0006: each run keeps its ticket's number, so that a list of runs names
-- their tickets without looking each one up. The lookup went through the
-- tickets' id index to the ticket's row, two page reads per run on a big
-- board: 0.6 ms of `bonsai status` for its 64 newest runs. A ticket's
-- number never changes, so the copy stays right.

ALTER TABLE runs ADD COLUMN ticket_number INTEGER NOT NULL DEFAULT 0;

UPDATE runs SET ticket_number = (SELECT number FROM tickets WHERE tickets.id = runs.ticket_id);
