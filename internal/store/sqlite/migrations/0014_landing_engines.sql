-- 0014: how work lands, which engine works it, how hard it thinks, its MCP
-- servers and schedule tools, per project (issues 14-17); and each
-- ticket's landing: its pull request or the commit it landed as (issue 14).

-- '' is auto; see board.LandMode.
ALTER TABLE projects ADD COLUMN land TEXT NOT NULL DEFAULT '' CHECK (land IN ('', 'merge', 'pr', 'none'));
-- '' is squash.
ALTER TABLE projects ADD COLUMN land_style TEXT NOT NULL DEFAULT '' CHECK (land_style IN ('', 'merge', 'rebase'));
-- '' is merge.
ALTER TABLE projects ADD COLUMN update_style TEXT NOT NULL DEFAULT '' CHECK (update_style IN ('', 'rebase'));
-- '' is Bonsai's own agent.
ALTER TABLE projects ADD COLUMN engine TEXT NOT NULL DEFAULT '' CHECK (engine IN ('', 'claude-code', 'codex', 'opencode'));
-- '' is the configured level.
ALTER TABLE projects ADD COLUMN thinking TEXT NOT NULL DEFAULT '' CHECK (thinking IN ('', 'off', 'low', 'medium', 'high'));
ALTER TABLE projects ADD COLUMN mcp_servers TEXT NOT NULL DEFAULT '[]' CHECK (json_type(mcp_servers) = 'array');
ALTER TABLE projects ADD COLUMN schedule_tools INTEGER NOT NULL DEFAULT 0 CHECK (schedule_tools IN (0, 1));

CREATE TABLE landings (
    ticket_id     TEXT    PRIMARY KEY REFERENCES tickets (id),
    project_id    TEXT    NOT NULL REFERENCES projects (id),
    mode          TEXT    NOT NULL CHECK (mode IN ('merge', 'pr', 'none')),
    branch        TEXT    NOT NULL DEFAULT '',
    forge         TEXT    NOT NULL DEFAULT '' CHECK (forge IN ('', 'github', 'gitlab', 'gitea')),
    pr_number     INTEGER NOT NULL DEFAULT 0,
    pr_url        TEXT    NOT NULL DEFAULT '',
    pr_state      TEXT    NOT NULL DEFAULT '' CHECK (pr_state IN ('', 'open', 'merged', 'closed')),
    checks        TEXT    NOT NULL DEFAULT '' CHECK (checks IN ('', 'pending', 'success', 'failure')),
    head_sha      TEXT    NOT NULL DEFAULT '',
    etag          TEXT    NOT NULL DEFAULT '',
    review_cursor TEXT    NOT NULL DEFAULT '',
    landed_commit TEXT    NOT NULL DEFAULT '',
    landed_at     INTEGER,
    error         TEXT    NOT NULL DEFAULT '',
    updated_at    INTEGER NOT NULL
) STRICT;

-- The beat's review sync reads every open pull request.
CREATE INDEX landings_open_prs ON landings (project_id) WHERE pr_state = 'open';
