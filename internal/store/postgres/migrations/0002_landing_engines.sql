-- 0002: SQLite's 0014. How work lands, which engine works it, how hard it
-- thinks, its MCP servers and schedule tools, per project (issues 14-17);
-- and each ticket's landing: its pull request or the commit it landed as.

ALTER TABLE projects
    ADD COLUMN land text NOT NULL DEFAULT '' CHECK (land IN ('', 'merge', 'pr', 'none')),
    ADD COLUMN land_style text NOT NULL DEFAULT '' CHECK (land_style IN ('', 'merge', 'rebase')),
    ADD COLUMN update_style text NOT NULL DEFAULT '' CHECK (update_style IN ('', 'rebase')),
    ADD COLUMN engine text NOT NULL DEFAULT '' CHECK (engine IN ('', 'claude-code', 'codex', 'opencode')),
    ADD COLUMN thinking text NOT NULL DEFAULT '' CHECK (thinking IN ('', 'off', 'low', 'medium', 'high')),
    ADD COLUMN mcp_servers text NOT NULL DEFAULT '[]' CHECK (json_typeof(mcp_servers::json) = 'array'),
    ADD COLUMN schedule_tools boolean NOT NULL DEFAULT false;

CREATE TABLE landings (
    ticket_id     text    PRIMARY KEY REFERENCES tickets (id),
    project_id    text    NOT NULL REFERENCES projects (id),
    mode          text    NOT NULL CHECK (mode IN ('merge', 'pr', 'none')),
    branch        text    NOT NULL DEFAULT '',
    forge         text    NOT NULL DEFAULT '' CHECK (forge IN ('', 'github', 'gitlab', 'gitea')),
    pr_number     integer NOT NULL DEFAULT 0,
    pr_url        text    NOT NULL DEFAULT '',
    pr_state      text    NOT NULL DEFAULT '' CHECK (pr_state IN ('', 'open', 'merged', 'closed')),
    checks        text    NOT NULL DEFAULT '' CHECK (checks IN ('', 'pending', 'success', 'failure')),
    head_sha      text    NOT NULL DEFAULT '',
    etag          text    NOT NULL DEFAULT '',
    review_cursor text    NOT NULL DEFAULT '',
    landed_commit text    NOT NULL DEFAULT '',
    landed_at     bigint,
    error         text    NOT NULL DEFAULT '',
    updated_at    bigint  NOT NULL
);

-- The beat's review sync reads every open pull request.
CREATE INDEX landings_open_prs ON landings (project_id) WHERE pr_state = 'open';
