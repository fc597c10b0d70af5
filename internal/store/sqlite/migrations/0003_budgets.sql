-- 0003: a project's own spending caps, overriding config.json's budget.*
-- keys (0: the configured cap), and an index for what a project spent
-- since a time (its daily budget).

ALTER TABLE projects ADD COLUMN ticket_tokens INTEGER NOT NULL DEFAULT 0;
ALTER TABLE projects ADD COLUMN run_budget_usd REAL NOT NULL DEFAULT 0;
ALTER TABLE projects ADD COLUMN run_tokens INTEGER NOT NULL DEFAULT 0;
ALTER TABLE projects ADD COLUMN daily_budget_usd REAL NOT NULL DEFAULT 0;
ALTER TABLE projects ADD COLUMN daily_tokens INTEGER NOT NULL DEFAULT 0;

CREATE INDEX runs_project ON runs (project_id, started_at);
