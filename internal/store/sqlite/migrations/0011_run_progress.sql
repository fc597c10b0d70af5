-- 0011: the heartbeat's verdict on each run (issue 13, docs/heartbeat.md
-- "No endless loops"): 'made' when the run moved its ticket on (a plan, a
-- move, a comment or a commit), 'none' when it did not, '' when the run is
-- not judged (interrupted, stopped by a budget, a rate limit or an approval
-- request, failed before the agent ran, or older than this migration). Two
-- judged runs in a row with 'none' block the ticket; kept on the run, in
-- FinishRun's transaction, so a crash cannot lose it and every process
-- reads the same streak.
ALTER TABLE runs ADD COLUMN progress TEXT NOT NULL DEFAULT ''
    CHECK (progress IN ('', 'none', 'made'));
