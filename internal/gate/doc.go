// Package gate is the one place a command the agent runs is judged. It
// wraps the coding tools so that the bash tool's command goes through the
// command policy (internal/policy) before it runs: allowed commands run,
// denied ones become a tool error naming the rule, and the ones the policy
// holds for a person are decided by an Asker. In read-only mode it also
// refuses the write and edit tools. Allowed calls pass through unchanged:
// the tools keep their names, descriptions and schemas.
package gate
