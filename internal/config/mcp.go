package config

import (
	"encoding/json"
	"fmt"
	"net/url"
	"regexp"
	"slices"
	"strings"

	"github.com/bonsai-run/bonsai/internal/board"
)

// MCP configures the MCP servers Bonsai's own agent may use
// (docs/mcp.md).
type MCP struct {
	// Servers are the servers by name: `bonsai run` uses them all unless
	// --mcp narrows them; a project's ticket runs use those it enables.
	Servers map[string]MCPServer `json:"servers,omitempty"`
}

// MCPServer is one MCP server: a command speaking MCP on stdio, or the
// URL of a streamable HTTP server.
type MCPServer struct {
	// Command and Args start a stdio server.
	Command string   `json:"command,omitempty"`
	Args    []string `json:"args,omitempty"`
	// Env adds variables to a stdio server's environment.
	Env map[string]string `json:"env,omitempty"`
	// URL is a streamable HTTP server's endpoint.
	URL string `json:"url,omitempty"`
	// Headers are sent with every request to URL.
	Headers map[string]string `json:"headers,omitempty"`
}

// mcpKey is the section of config.json holding MCP servers.
const mcpKey = "mcp.servers"

// mcpFields are the settable fields of a server.
var mcpFields = []string{"command", "args", "env", "url", "headers"}

func mcpKeyHelp() string { return mcpKey + ".<name>.<" + strings.Join(mcpFields, "|") + ">" }

// CheckMCPName refuses a server name that cannot be part of a tool name
// mcp__<server>__<tool>, by the board's rule for project settings.
func CheckMCPName(name string) error { return board.ValidateMCPName(name) }

// secretRef is a value's reference to a secret: ${credential:NAME} (a
// credential `bonsai credentials set` stored) or ${env:VAR} (a variable
// of Bonsai's own environment).
var secretRef = regexp.MustCompile(`\$\{(credential|env):([A-Za-z0-9_.-]+)\}`)

// onlyRef is a whole secret value: an optional scheme word ("Bearer")
// then one reference.
var onlyRef = regexp.MustCompile(`^([A-Za-z]+ )?\$\{(credential|env):[A-Za-z0-9_.-]+\}$`)

// secretish names a variable or header that holds a secret.
var secretish = regexp.MustCompile(`(?i)(auth|token|secret|passw|key|cookie|credential|session)`)

// secretLooking are prefixes of well-known secret formats.
var secretLooking = regexp.MustCompile(`(sk-[A-Za-z0-9_-]{8}|ghp_|gho_|github_pat_|glpat-|xox[abp]-|AKIA[0-9A-Z]{12}|eyJ[A-Za-z0-9_-]{10,}\.)`)

// checkMCPValue refuses an env or header value that would put a secret in
// config.json: a secret-looking name needs a ${credential:…} or ${env:…}
// reference, and no value may hold a well-known secret format.
func checkMCPValue(name, value string) error {
	if secretLooking.MatchString(secretRef.ReplaceAllString(value, "")) {
		return fmt.Errorf("%s looks like a secret; config.json holds no secrets: store it with 'bonsai credentials set NAME' and write ${credential:NAME}, or write ${env:VAR}", name)
	}
	if secretish.MatchString(name) && !onlyRef.MatchString(value) {
		return fmt.Errorf("%s holds a secret, so its value must be a reference such as ${credential:github}, Bearer ${credential:github} or ${env:VAR}, not the secret itself", name)
	}
	return nil
}

// Validate reports what is wrong with s.
func (s MCPServer) Validate() error {
	switch {
	case s.Command == "" && s.URL == "":
		return fmt.Errorf("needs a command (a stdio server) or a url (a streamable HTTP server)")
	case s.Command != "" && s.URL != "":
		return fmt.Errorf("has both a command and a url; keep one")
	case s.URL != "" && (len(s.Args) > 0 || len(s.Env) > 0):
		return fmt.Errorf("args and env are for a command; a url server takes headers")
	case s.Command != "" && len(s.Headers) > 0:
		return fmt.Errorf("headers are for a url; a command server takes env")
	}
	if s.URL != "" {
		u, err := url.Parse(s.URL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return fmt.Errorf("url must be an http or https URL, got %q", s.URL)
		}
		if u.User != nil || secretLooking.MatchString(s.URL) || strings.Contains(s.URL, "${") {
			return fmt.Errorf("url must not hold credentials; send them in a header: headers.Authorization = Bearer ${credential:NAME}")
		}
	}
	for _, a := range s.Args {
		if secretLooking.MatchString(a) {
			return fmt.Errorf("an argument looks like a secret; pass secrets in env as ${credential:NAME} or ${env:VAR}")
		}
	}
	for k, v := range s.Env {
		if err := checkEnvName(k); err != nil {
			return fmt.Errorf("env: %w", err)
		}
		if err := checkMCPValue("env "+k, v); err != nil {
			return err
		}
	}
	for k, v := range s.Headers {
		if k == "" || strings.ContainsAny(k, " :\r\n") {
			return fmt.Errorf("header name %q is not valid", k)
		}
		if strings.ContainsAny(v, "\r\n") {
			return fmt.Errorf("header %s: value holds a line break", k)
		}
		if err := checkMCPValue("header "+k, v); err != nil {
			return err
		}
	}
	return nil
}

// Refs returns the secret references of s's env and header values, as
// "credential:NAME" or "env:VAR".
func (s MCPServer) Refs() []string {
	var out []string
	for _, m := range []map[string]string{s.Env, s.Headers} {
		for _, v := range m {
			for _, r := range secretRef.FindAllStringSubmatch(v, -1) {
				out = append(out, r[1]+":"+r[2])
			}
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// ExpandRefs replaces the references in v with what lookup returns for
// each (kind "credential" or "env").
func ExpandRefs(v string, lookup func(kind, name string) (string, error)) (string, error) {
	var ferr error
	out := secretRef.ReplaceAllStringFunc(v, func(m string) string {
		r := secretRef.FindStringSubmatch(m)
		s, err := lookup(r[1], r[2])
		if err != nil && ferr == nil {
			ferr = err
		}
		return s
	})
	return out, ferr
}

// applyMCP reads the mcp section of config.json into c.
func applyMCP(c *Config, v any) error {
	obj, ok := v.(map[string]any)
	if !ok {
		return &FileError{Key: "mcp", Err: fmt.Errorf(`must be an object: {"servers": {"name": {"command": "…"}}}`)}
	}
	for k, sv := range obj {
		if k != "servers" {
			return &FileError{Key: "mcp." + k, Err: fmt.Errorf("unknown key; MCP keys are %s", mcpKeyHelp())}
		}
		servers, ok := sv.(map[string]any)
		if !ok {
			return &FileError{Key: mcpKey, Err: fmt.Errorf("must be an object of servers by name")}
		}
		for name, s := range servers {
			at := mcpKey + "." + name
			if err := CheckMCPName(name); err != nil {
				return &FileError{Key: at, Err: err}
			}
			b, _ := json.Marshal(s)
			var ms MCPServer
			dec := json.NewDecoder(strings.NewReader(string(b)))
			dec.DisallowUnknownFields()
			if err := dec.Decode(&ms); err != nil {
				return &FileError{Key: at, Err: fmt.Errorf("%v; MCP keys are %s", err, mcpKeyHelp())}
			}
			if err := ms.Validate(); err != nil {
				return &FileError{Key: at, Err: err}
			}
			if c.MCP.Servers == nil {
				c.MCP.Servers = map[string]MCPServer{}
			}
			c.MCP.Servers[name] = ms
		}
	}
	return nil
}

// parseMCPKey returns the server and field of "mcp.servers.<name>.<field>".
func parseMCPKey(key string) (name, field string, err error) {
	rest, _ := strings.CutPrefix(key, mcpKey+".")
	name, field, ok := strings.Cut(rest, ".")
	if !ok || !slices.Contains(mcpFields, field) {
		return "", "", fmt.Errorf("unknown key %q; MCP keys are %s", key, mcpKeyHelp())
	}
	if err := CheckMCPName(name); err != nil {
		return "", "", fmt.Errorf("%s: %w", key, err)
	}
	return name, field, nil
}

// parseMap reads a command-line map: a JSON object, or KEY=VALUE pairs
// separated by commas.
func parseMap(value string) (map[string]string, error) {
	out := map[string]string{}
	if strings.HasPrefix(strings.TrimSpace(value), "{") {
		if err := json.Unmarshal([]byte(value), &out); err != nil {
			return nil, fmt.Errorf("not a JSON object of strings: %v", err)
		}
		return out, nil
	}
	for pair := range strings.SplitSeq(value, ",") {
		k, v, ok := strings.Cut(strings.TrimSpace(pair), "=")
		if !ok || k == "" {
			return nil, fmt.Errorf("%q is not KEY=VALUE; give KEY=VALUE,KEY=VALUE or a JSON object", pair)
		}
		out[k] = v
	}
	return out, nil
}

// setMCP is Set for an mcp.servers.<name>.<field> key; "" clears the
// field, and a server left with no field is removed.
func (c Config) setMCP(key, value string) (Config, error) {
	name, field, err := parseMCPKey(key)
	if err != nil {
		return c, err
	}
	servers := make(map[string]MCPServer, len(c.MCP.Servers)+1)
	for k, v := range c.MCP.Servers {
		servers[k] = v
	}
	s := servers[name]
	value = strings.TrimSpace(value)
	switch field {
	case "command":
		s.Command = value
	case "url":
		s.URL = value
	case "args":
		s.Args = nil
		if strings.HasPrefix(value, "[") {
			if err := json.Unmarshal([]byte(value), &s.Args); err != nil {
				return c, fmt.Errorf("%s: not a JSON array of strings: %v", key, err)
			}
		} else if value != "" {
			s.Args = strings.Split(value, ",")
		}
	case "env", "headers":
		var m map[string]string
		if value != "" {
			if m, err = parseMap(value); err != nil {
				return c, fmt.Errorf("%s: %w", key, err)
			}
		}
		if field == "env" {
			s.Env = m
		} else {
			s.Headers = m
		}
	}
	if s.Command == "" && s.URL == "" && len(s.Args) == 0 && len(s.Env) == 0 && len(s.Headers) == 0 {
		delete(servers, name)
	} else {
		if s.Command == "" && s.URL == "" {
			return c, fmt.Errorf("%s: set %s.%s.command (a stdio server) or %s.%s.url (an HTTP server) first", key, mcpKey, name, mcpKey, name)
		}
		if err := s.Validate(); err != nil {
			return c, fmt.Errorf("%s: server %s %w", key, name, err)
		}
		servers[name] = s
	}
	if len(servers) == 0 {
		servers = nil
	}
	c.MCP.Servers = servers
	return c, nil
}

// getMCP returns the value of an mcp.servers.<name>.<field> key as
// `config get` prints it.
func (c Config) getMCP(key string) (string, error) {
	name, field, err := parseMCPKey(key)
	if err != nil {
		return "", err
	}
	s := c.MCP.Servers[name]
	switch field {
	case "command":
		return s.Command, nil
	case "url":
		return s.URL, nil
	case "args":
		return jsonOrEmpty(s.Args), nil
	case "env":
		return jsonOrEmpty(s.Env), nil
	}
	return jsonOrEmpty(s.Headers), nil
}

func jsonOrEmpty(v any) string {
	b, _ := json.Marshal(v)
	switch string(b) {
	case "null", "[]", "{}":
		return ""
	}
	return string(b)
}

// mcpSettings lists the MCP settings of c, by server name.
func (c Config) mcpSettings() []Setting {
	names := make([]string, 0, len(c.MCP.Servers))
	for n := range c.MCP.Servers {
		names = append(names, n)
	}
	slices.Sort(names)
	var out []Setting
	for _, n := range names {
		for _, f := range mcpFields {
			v, _ := c.getMCP(mcpKey + "." + n + "." + f)
			if v != "" {
				out = append(out, Setting{Key: mcpKey + "." + n + "." + f, Value: v, Help: "MCP server " + n})
			}
		}
	}
	return out
}
