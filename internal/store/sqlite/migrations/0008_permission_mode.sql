-- 0008: a project's permission mode (docs/design.md §3, its agent settings):
-- '' (auto) lets an agent move a researched ticket to IN_PROGRESS itself;
-- 'plan' has a person approve each plan first (board.ModePlan).

ALTER TABLE projects ADD COLUMN permission_mode TEXT NOT NULL DEFAULT ''
    CHECK (permission_mode IN ('', 'plan'));
