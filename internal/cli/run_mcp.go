package cli

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/bonsai-run/bonsai/internal/config"
	"github.com/bonsai-run/bonsai/internal/credentials"
	"github.com/bonsai-run/bonsai/internal/executor"
	"github.com/bonsai-run/bonsai/internal/llm"
	"github.com/bonsai-run/bonsai/internal/mcpclient"
)

// mcpNone is the --mcp value that turns every server off.
const mcpNone = "none"

// parseMCPFlag reads --mcp: nil (every configured server) when empty,
// an empty list for "none", else the names, each configured.
func parseMCPFlag(list string, c config.Config) ([]string, error) {
	list = strings.TrimSpace(list)
	if list == "" {
		names := make([]string, 0, len(c.MCP.Servers))
		for n := range c.MCP.Servers {
			names = append(names, n)
		}
		slices.Sort(names)
		return names, nil
	}
	if list == mcpNone {
		return []string{}, nil
	}
	var names []string
	for n := range strings.SplitSeq(list, ",") {
		n = strings.TrimSpace(n)
		if n == "" || slices.Contains(names, n) {
			continue
		}
		if _, ok := c.MCP.Servers[n]; !ok {
			return nil, usagef("--mcp: no MCP server %q in config.json (configured: %s); add one with 'bonsai config set mcp.servers.%s.command PROGRAM'",
				n, configuredMCP(c), n)
		}
		names = append(names, n)
	}
	return names, nil
}

func configuredMCP(c config.Config) string {
	var names []string
	for n := range c.MCP.Servers {
		names = append(names, n)
	}
	if len(names) == 0 {
		return "none"
	}
	slices.Sort(names)
	return strings.Join(names, ", ")
}

// mcpSecret is the value of a ${credential:NAME} or ${env:VAR} reference.
func (a *app) mcpSecret(kind, name string) (string, error) {
	if kind == "env" {
		if v := a.env(name); v != "" {
			return v, nil
		}
		return "", fmt.Errorf("${env:%s}: %s is not set in Bonsai's environment", name, name)
	}
	if _, err := credentials.Lookup(name); err != nil {
		return "", fmt.Errorf("${credential:%s}: %v", name, err)
	}
	if v := a.storedValue(name); v != "" {
		return v, nil
	}
	return "", fmt.Errorf("${credential:%s}: no credential is stored for %s; run 'bonsai credentials set %s'", name, name, name)
}

// openMCP opens the named servers of c for a run whose commands ex runs.
func (a *app) openMCP(ctx context.Context, c config.Config, names []string, ex executor.Executor, warn func(string)) *mcpclient.Client {
	servers, secrets := mcpclient.Configured(c.MCP.Servers, names, a.mcpSecret)
	red := llm.NewRedactor(secrets...)
	opts := mcpclient.Options{Exec: ex, Warn: warn, Redact: red.String}
	if d, err := a.dataDir(); err == nil {
		opts.CacheDir = d.Path("cache", "mcp-tools")
	}
	return mcpclient.Open(ctx, servers, opts)
}

// mcpReports are the servers' reports for the json mode's "mcp" line.
func mcpReports(c *mcpclient.Client) []any {
	var out []any
	for _, r := range c.Reports() {
		out = append(out, r)
	}
	return out
}
