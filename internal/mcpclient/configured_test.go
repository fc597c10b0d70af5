package mcpclient

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/bonsai-run/bonsai/internal/config"
)

// TestConfigured_FillsReferencesAndSaysWhatIsMissing: references are
// filled in and returned for redaction, the environment is in name order,
// a missing secret or an unconfigured name is the server's Err.
func TestConfigured_FillsReferencesAndSaysWhatIsMissing(t *testing.T) {
	t.Parallel()
	conf := map[string]config.MCPServer{
		"gh":   {Command: "gh-mcp", Args: []string{"--stdio"}, Env: map[string]string{"Z": "z", "TOKEN": "${credential:GITHUB_TOKEN}"}},
		"docs": {URL: "https://docs.example/mcp", Headers: map[string]string{"Authorization": "Bearer ${env:DOCS_KEY}"}},
	}
	secret := func(kind, name string) (string, error) {
		if name == "GITHUB_TOKEN" {
			return "ghp_secret", nil
		}
		return "", errors.New("${env:" + name + "}: not set")
	}
	servers, secrets := Configured(conf, []string{"gh", "docs", "gone"}, secret)
	if len(servers) != 3 || !slices.Equal(secrets, []string{"ghp_secret"}) {
		t.Fatalf("servers %+v, secrets %v", servers, secrets)
	}
	gh := servers[0]
	if !slices.Equal(gh.Command, []string{"gh-mcp", "--stdio"}) || !slices.Equal(gh.Env, []string{"TOKEN=ghp_secret", "Z=z"}) || gh.Err != nil {
		t.Errorf("gh = %+v", gh)
	}
	if d := servers[1]; d.URL != "https://docs.example/mcp" || d.Err == nil || !strings.Contains(d.Err.Error(), "DOCS_KEY") {
		t.Errorf("docs = %+v", d)
	}
	if g := servers[2]; g.Err == nil || !strings.Contains(g.Err.Error(), "bonsai config set mcp.servers.gone.command") {
		t.Errorf("unconfigured = %+v", g)
	}
}
