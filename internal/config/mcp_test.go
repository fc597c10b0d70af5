package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestMCP_SetGetListAndLoad(t *testing.T) {
	c := Default()
	var err error
	for _, kv := range [][2]string{
		{"mcp.servers.fs.command", "npx"},
		{"mcp.servers.fs.args", `["-y","@modelcontextprotocol/server-filesystem","."]`},
		{"mcp.servers.fs.env", "LOG_LEVEL=debug,GITHUB_TOKEN=${credential:github}"},
		{"mcp.servers.web.url", "https://mcp.example.com/mcp"},
		{"mcp.servers.web.headers", `{"Authorization":"Bearer ${env:EXAMPLE_TOKEN}","X-Team":"blue"}`},
	} {
		if c, err = c.Set(kv[0], kv[1]); err != nil {
			t.Fatalf("set %s: %v", kv[0], err)
		}
	}
	if got, _ := c.Get("mcp.servers.fs.args"); got != `["-y","@modelcontextprotocol/server-filesystem","."]` {
		t.Errorf("args = %s", got)
	}
	var keys []string
	for _, s := range c.List() {
		if strings.HasPrefix(s.Key, "mcp.") {
			keys = append(keys, s.Key)
		}
	}
	if strings.Join(keys, " ") != "mcp.servers.fs.command mcp.servers.fs.args mcp.servers.fs.env mcp.servers.web.url mcp.servers.web.headers" {
		t.Errorf("list = %v", keys)
	}
	if refs := c.MCP.Servers["fs"].Refs(); strings.Join(refs, " ") != "credential:github" {
		t.Errorf("refs = %v", refs)
	}
	path := filepath.Join(t.TempDir(), "config.json")
	if err := Save(path, c); err != nil {
		t.Fatal(err)
	}
	back, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if back.MCP.Servers["web"].Headers["X-Team"] != "blue" || back.MCP.Servers["fs"].Env["LOG_LEVEL"] != "debug" {
		t.Errorf("loaded %+v", back.MCP)
	}
	if c, err = c.Set("mcp.servers.web.url", ""); err == nil {
		t.Error("a server with headers and no url was kept")
	}
	c, _ = c.Set("mcp.servers.web.headers", "")
	if c, err = c.Set("mcp.servers.web.url", ""); err != nil || c.MCP.Servers["web"].URL != "" {
		t.Errorf("removing web: %v %+v", err, c.MCP.Servers)
	}
	if _, ok := c.MCP.Servers["web"]; ok {
		t.Error("an empty server stays")
	}
}

func TestMCP_RefusesInlineSecrets(t *testing.T) {
	c := Default()
	c, _ = c.Set("mcp.servers.gh.command", "github-mcp")
	c, _ = c.Set("mcp.servers.web.url", "https://mcp.example.com/mcp")
	for _, kv := range [][2]string{
		{"mcp.servers.gh.env", "GITHUB_TOKEN=abc123"},
		{"mcp.servers.gh.env", "OTHER=ghp_abcdefabcdefabcdef"},
		{"mcp.servers.gh.args", "--token,ghp_abcdefabcdefabcdef"},
		{"mcp.servers.web.headers", "Authorization=Bearer abc123"},
		{"mcp.servers.web.headers", "X-Api-Key=${credential:github}extra"},
		{"mcp.servers.web.url", "https://user:pw@mcp.example.com/mcp"},
		{"mcp.servers.Bad_Name.command", "x"},
		{"mcp.servers.gh.nope", "x"},
		{"mcp.servers.new.args", "x"},
		{"mcp.servers.gh.url", "https://both.example.com"},
	} {
		if _, err := c.Set(kv[0], kv[1]); err == nil {
			t.Errorf("set %s %q: accepted", kv[0], kv[1])
		}
	}
	path := filepath.Join(t.TempDir(), "config.json")
	if err := os.WriteFile(path, []byte(`{"mcp":{"servers":{"gh":{"command":"x","env":{"GH_TOKEN":"ghp_abcdefabcdefabcdef"}}}}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(path); err == nil || !strings.Contains(err.Error(), "mcp.servers.gh") {
		t.Errorf("load: %v", err)
	}
}
