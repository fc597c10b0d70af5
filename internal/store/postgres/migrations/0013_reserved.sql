-- 0013: reserved for the attachments of issue 30 (branch i30-attach), which
-- lands with this number; this placeholder keeps the numbers without a gap
-- on the branch of issue 31's dependencies. The lead drops it at the merge.
SELECT 1;
