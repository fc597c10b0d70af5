-- Leases per ticket, as SQLite's (issue 31; to be numbered 0016 after the
-- session's other migrations). A project's agents may work several
-- tickets at once (its maxAgents setting), so a lease is keyed by its
-- ticket: never two leases, so never two runs, on one ticket.
-- AcquireLease counts the project's leases against the setting, under
-- the leases' advisory lock.
ALTER TABLE leases DROP CONSTRAINT leases_pkey;
DROP INDEX leases_ticket;
ALTER TABLE leases ADD PRIMARY KEY (ticket_id);
CREATE INDEX leases_project ON leases (project_id);
