-- 0022: a project's agent settings in one JSON object (issue 26), keyed
-- by board.Settings' names and checked by that table when read and
-- written, so a new setting needs no migration. The per-setting columns
-- move into it and are dropped, except take_backlog: the pick query and
-- the ticket queue's triggers read it, so the store keeps it as a copy of
-- the setting.
ALTER TABLE projects ADD COLUMN settings TEXT NOT NULL DEFAULT '{}' CHECK (json_type(settings) = 'object');

UPDATE projects SET settings = json_object(
    'model', model, 'verify', verify,
    'budgetUsd', budget_usd, 'ticketTokens', ticket_tokens,
    'runBudgetUsd', run_budget_usd, 'runTokens', run_tokens,
    'dailyBudgetUsd', daily_budget_usd, 'dailyTokens', daily_tokens,
    'takeBacklog', json(CASE WHEN take_backlog THEN 'true' ELSE 'false' END),
    'permissionMode', permission_mode,
    'allow', json(allow_commands), 'ask', json(ask_commands),
    'sandbox', sandbox, 'network', network, 'allowHosts', json(allow_hosts),
    'land', land, 'landStyle', land_style, 'updateStyle', update_style,
    'engine', engine, 'thinking', thinking, 'mcpServers', json(mcp_servers),
    'scheduleTools', json(CASE WHEN schedule_tools THEN 'true' ELSE 'false' END));

ALTER TABLE projects DROP COLUMN model;
ALTER TABLE projects DROP COLUMN verify;
ALTER TABLE projects DROP COLUMN budget_usd;
ALTER TABLE projects DROP COLUMN ticket_tokens;
ALTER TABLE projects DROP COLUMN run_budget_usd;
ALTER TABLE projects DROP COLUMN run_tokens;
ALTER TABLE projects DROP COLUMN daily_budget_usd;
ALTER TABLE projects DROP COLUMN daily_tokens;
ALTER TABLE projects DROP COLUMN permission_mode;
ALTER TABLE projects DROP COLUMN allow_commands;
ALTER TABLE projects DROP COLUMN ask_commands;
ALTER TABLE projects DROP COLUMN sandbox;
ALTER TABLE projects DROP COLUMN network;
ALTER TABLE projects DROP COLUMN allow_hosts;
ALTER TABLE projects DROP COLUMN land;
ALTER TABLE projects DROP COLUMN land_style;
ALTER TABLE projects DROP COLUMN update_style;
ALTER TABLE projects DROP COLUMN engine;
ALTER TABLE projects DROP COLUMN thinking;
ALTER TABLE projects DROP COLUMN mcp_servers;
ALTER TABLE projects DROP COLUMN schedule_tools;
