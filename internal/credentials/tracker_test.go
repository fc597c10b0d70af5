package credentials_test

import (
	"slices"
	"testing"

	"github.com/bonsai-run/bonsai/internal/credentials"
)

// The issue trackers' tokens are stored under names of their own and held
// by the redactor like the forges' tokens.
func TestTrackerTokens(t *testing.T) {
	env := map[string]string{"LINEAR_API_KEY": "lin_api_0123456789abcdef", "JIRA_API_TOKEN": "ATATT0123456789abcdef"}
	got := credentials.EnvSecrets(func(k string) string { return env[k] })
	for k, v := range env {
		if !slices.Contains(got, v) {
			t.Errorf("EnvSecrets leaves out %s", k)
		}
		n, ok := credentials.ForEnv(k)
		if !ok || n.Forge {
			t.Errorf("%s is not a stored name's variable: %+v", k, n)
		}
	}
	for _, name := range []string{"linear", "jira"} {
		if _, err := credentials.Lookup(name); err != nil {
			t.Errorf("credentials set %s: %v", name, err)
		}
	}
}
