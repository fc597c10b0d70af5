-- 0009: the command policy and the sandbox, per project (issue 12).
--
-- permission_mode gains 'ask' and 'read-only' (board.PermissionMode). A
-- column's CHECK cannot be altered in SQLite, so the column is replaced:
-- a new one with the wider CHECK, the values copied, the old one dropped
-- (allowed: its CHECK concerns only itself) and the new one renamed.
ALTER TABLE projects ADD COLUMN permission_mode_0009 TEXT NOT NULL DEFAULT ''
    CHECK (permission_mode_0009 IN ('', 'plan', 'ask', 'read-only'));
UPDATE projects SET permission_mode_0009 = permission_mode;
ALTER TABLE projects DROP COLUMN permission_mode;
ALTER TABLE projects RENAME COLUMN permission_mode_0009 TO permission_mode;

-- The project's command patterns and allowed hosts, as JSON arrays of
-- strings (board.AgentSettings.Allow, Ask, AllowHosts).
ALTER TABLE projects ADD COLUMN allow_commands TEXT NOT NULL DEFAULT '[]' CHECK (json_type(allow_commands) = 'array');
ALTER TABLE projects ADD COLUMN ask_commands TEXT NOT NULL DEFAULT '[]' CHECK (json_type(ask_commands) = 'array');
ALTER TABLE projects ADD COLUMN allow_hosts TEXT NOT NULL DEFAULT '[]' CHECK (json_type(allow_hosts) = 'array');

-- '' is required, the default; 'off' runs commands on the host.
ALTER TABLE projects ADD COLUMN sandbox TEXT NOT NULL DEFAULT '' CHECK (sandbox IN ('', 'off'));
-- '' is proxy, the default.
ALTER TABLE projects ADD COLUMN network TEXT NOT NULL DEFAULT '' CHECK (network IN ('', 'none', 'all'));
