package workspace

import (
	"path"
	"strings"
)

// RemoteVars names the runtime's variables that git needs to reach a
// remote (SSH agent, askpass helpers, git config given by variables);
// "*" matches any run of characters. They go to clone, fetch and push
// only (Options.RemoteEnv), never to the agent's commands.
var RemoteVars = []string{"SSH_AUTH_SOCK", "SSH_AGENT_PID", "SSH_ASKPASS", "GIT_ASKPASS", "GIT_SSH", "GIT_SSH_COMMAND",
	"GIT_CONFIG_GLOBAL", "GIT_CONFIG_COUNT", "GIT_CONFIG_KEY_*", "GIT_CONFIG_VALUE_*"}

// PickEnv returns the KEY=VALUE pairs of env whose names match one of
// names ("*" allowed), in env's order.
func PickEnv(env, names []string) []string {
	var out []string
	for _, kv := range env {
		name, _, _ := strings.Cut(kv, "=")
		for _, n := range names {
			if ok, _ := path.Match(n, name); ok {
				out = append(out, kv)
				break
			}
		}
	}
	return out
}
