package workspace

import (
	"slices"
	"testing"
)

// TestPickEnv: exact names and patterns pick, in the environment's order;
// an agent's or a provider's variable is never picked.
func TestPickEnv(t *testing.T) {
	t.Parallel()
	env := []string{"ANTHROPIC_API_KEY=k", "GIT_CONFIG_KEY_0=credential.helper", "SSH_AUTH_SOCK=/run/a", "HOME=/h", "GIT_CONFIG_COUNT=1", "GH_TOKEN=t"}
	got := PickEnv(env, append(RemoteVars, "GH_TOKEN"))
	want := []string{"GIT_CONFIG_KEY_0=credential.helper", "SSH_AUTH_SOCK=/run/a", "GIT_CONFIG_COUNT=1", "GH_TOKEN=t"}
	if !slices.Equal(got, want) {
		t.Errorf("PickEnv = %v, want %v", got, want)
	}
}
