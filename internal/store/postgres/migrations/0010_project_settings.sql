-- 0010: SQLite's 0022. A project's agent settings in one JSON object
-- (issue 26), keyed by board.Settings' names and checked by that table
-- when read and written, so a new setting needs no migration. JSON text,
-- like the lists it replaces, so it is kept as written. The per-setting
-- columns move into it and are dropped, except take_backlog: the pick
-- query and the ticket queue read it, so the store keeps it as a copy of
-- the setting.
ALTER TABLE projects ADD COLUMN settings text NOT NULL DEFAULT '{}' CHECK (json_typeof(settings::json) = 'object');

UPDATE projects SET settings = jsonb_build_object(
    'model', model, 'verify', verify,
    'budgetUsd', budget_usd, 'ticketTokens', ticket_tokens,
    'runBudgetUsd', run_budget_usd, 'runTokens', run_tokens,
    'dailyBudgetUsd', daily_budget_usd, 'dailyTokens', daily_tokens,
    'takeBacklog', take_backlog, 'permissionMode', permission_mode,
    'allow', allow_commands::jsonb, 'ask', ask_commands::jsonb,
    'sandbox', sandbox, 'network', network, 'allowHosts', allow_hosts::jsonb,
    'land', land, 'landStyle', land_style, 'updateStyle', update_style,
    'engine', engine, 'thinking', thinking, 'mcpServers', mcp_servers::jsonb,
    'scheduleTools', schedule_tools)::text;

ALTER TABLE projects
    DROP COLUMN model, DROP COLUMN verify, DROP COLUMN budget_usd, DROP COLUMN ticket_tokens,
    DROP COLUMN run_budget_usd, DROP COLUMN run_tokens, DROP COLUMN daily_budget_usd, DROP COLUMN daily_tokens,
    DROP COLUMN permission_mode, DROP COLUMN allow_commands, DROP COLUMN ask_commands, DROP COLUMN sandbox,
    DROP COLUMN network, DROP COLUMN allow_hosts, DROP COLUMN land, DROP COLUMN land_style,
    DROP COLUMN update_style, DROP COLUMN engine, DROP COLUMN thinking, DROP COLUMN mcp_servers,
    DROP COLUMN schedule_tools;
