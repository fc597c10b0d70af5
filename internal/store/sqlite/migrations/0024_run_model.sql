-- 0024: each run records the model and engine it ran with, when it
-- started, and how many model responses it took, when it finished (issue
-- 32): the insights group landed work by what did it, not by the
-- project's setting of today. Runs recorded before this have none.
ALTER TABLE runs ADD COLUMN model TEXT NOT NULL DEFAULT '';
ALTER TABLE runs ADD COLUMN engine TEXT NOT NULL DEFAULT '';
ALTER TABLE runs ADD COLUMN turns INTEGER NOT NULL DEFAULT 0;
