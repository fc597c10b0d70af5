-- 0013: run control (issue 13, docs/heartbeat.md "Run control"). A person
-- stops a running run from another process (the web server, `bonsai
-- ticket stop`) by setting stop_requested_at on it; the beat running it
-- polls the row and cancels the run, which finishes with status
-- 'stopped'. stop_requested_by names who asked.
ALTER TABLE runs ADD COLUMN stop_requested_at INTEGER;
ALTER TABLE runs ADD COLUMN stop_requested_by TEXT NOT NULL DEFAULT '';
