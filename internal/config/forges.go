package config

import (
	"fmt"
	"slices"
	"strings"
)

// ForgeHost is a self-hosted forge of config.json's forge.hosts: which
// forge runs on the host and, when not at the usual path, its API.
type ForgeHost struct {
	// Kind is github (GitHub Enterprise), gitlab or gitea (also Forgejo).
	Kind string `json:"kind"`
	// API is the REST API's base URL; "" means the kind's usual path on
	// the host (/api/v3, /api/v4, /api/v1).
	API string `json:"api,omitempty"`
}

// Forge is config.json's forge section.
type Forge struct {
	// BonsaiURL is where people open Bonsai's web UI (http://host:port),
	// for the link from a pull request back to its ticket; "" names the
	// ticket without a link.
	BonsaiURL string `json:"bonsaiURL,omitempty"`
	// Hosts are the self-hosted forges by host (with its port when the
	// remote URL names one).
	Hosts map[string]ForgeHost `json:"hosts,omitempty"`
}

func init() {
	keys = append(keys, key{name: "forge.bonsaiURL", help: "address of Bonsai's web UI as people open it, for links from pull requests back to tickets and from notifications to attached files",
		str: func(c *Config) *string { return &c.Forge.BonsaiURL }, check: func(s string) error {
			if s == "" {
				return nil
			}
			return checkBaseURL(s)
		}})
}

// forgeHostsKey is the section of config.json holding the forge hosts.
const forgeHostsKey = "forge.hosts"

// forgeKinds are the kinds a forge host may be.
var forgeKinds = []string{"github", "gitlab", "gitea", "forgejo"}

func forgeKeyHelp() string {
	return "forge.hosts.<host> (github|gitlab|gitea) and forge.hosts.<host>.api"
}

func checkForgeKind(k string) error {
	if !slices.Contains(forgeKinds, k) {
		return fmt.Errorf("must be github, gitlab or gitea (forgejo is gitea), got %q", k)
	}
	return nil
}

// checkForgeHost refuses a host that is not a host name with an optional
// port.
func checkForgeHost(h string) error {
	if h == "" || strings.ContainsAny(h, "/ \t\r\n@?#") {
		return fmt.Errorf("%q is not a host name (write it as in the remote URL: git.example.com or git.example.com:8443)", h)
	}
	return nil
}

// parseForgeKey returns the host of forge.hosts.<host>[.api] and whether
// the key is the api field.
func parseForgeKey(name string) (host string, api bool, err error) {
	rest, _ := strings.CutPrefix(name, forgeHostsKey+".")
	if h, ok := strings.CutSuffix(rest, ".api"); ok {
		rest, api = h, true
	}
	if err := checkForgeHost(rest); err != nil {
		return "", false, fmt.Errorf("%s: %w; forge keys are %s", name, err, forgeKeyHelp())
	}
	return rest, api, nil
}

// applyForgeHosts reads the forge.hosts section of config.json into c.
func applyForgeHosts(c *Config, v any) error {
	obj, ok := v.(map[string]any)
	if !ok {
		return &FileError{Key: forgeHostsKey, Err: fmt.Errorf(`must be an object: {"git.example.com": {"kind": "gitlab"}}`)}
	}
	for host, settings := range obj {
		at := forgeHostsKey + "." + host
		if err := checkForgeHost(host); err != nil {
			return &FileError{Key: at, Err: err}
		}
		fields, ok := settings.(map[string]any)
		if !ok {
			return &FileError{Key: at, Err: fmt.Errorf(`must be an object: {"kind": "gitlab", "api": "https://…"}`)}
		}
		var fh ForgeHost
		for k, val := range fields {
			s, ok := val.(string)
			if !ok {
				return &FileError{Key: at + "." + k, Err: fmt.Errorf("must be a string, got %s", describe(val))}
			}
			switch k {
			case "kind":
				if err := checkForgeKind(s); err != nil {
					return &FileError{Key: at + "." + k, Err: err}
				}
				fh.Kind = s
			case "api":
				if err := checkBaseURL(s); err != nil {
					return &FileError{Key: at + "." + k, Err: err}
				}
				fh.API = s
			default:
				return &FileError{Key: at + "." + k, Err: fmt.Errorf("unknown key; forge keys are %s", forgeKeyHelp())}
			}
		}
		if fh.Kind == "" {
			return &FileError{Key: at + ".kind", Err: fmt.Errorf("missing: say which forge runs there (github, gitlab or gitea)")}
		}
		if c.Forge.Hosts == nil {
			c.Forge.Hosts = map[string]ForgeHost{}
		}
		c.Forge.Hosts[host] = fh
	}
	return nil
}

// getForge is Get for a forge.hosts key.
func (c Config) getForge(name string) (string, error) {
	host, api, err := parseForgeKey(name)
	if err != nil {
		return "", err
	}
	if api {
		return c.Forge.Hosts[host].API, nil
	}
	return c.Forge.Hosts[host].Kind, nil
}

// setForge is Set for a forge.hosts key; "" for the kind removes the
// host, "" for the api the usual path.
func (c Config) setForge(name, value string) (Config, error) {
	host, api, err := parseForgeKey(name)
	if err != nil {
		return c, err
	}
	value = strings.TrimSpace(value)
	hosts := make(map[string]ForgeHost, len(c.Forge.Hosts)+1)
	for k, v := range c.Forge.Hosts {
		hosts[k] = v
	}
	fh := hosts[host]
	switch {
	case api && value != "":
		if err := checkBaseURL(value); err != nil {
			return c, fmt.Errorf("%s: %w", name, err)
		}
		if fh.Kind == "" {
			return c, fmt.Errorf("%s: set forge.hosts.%s to github, gitlab or gitea first", name, host)
		}
		fh.API = value
	case api:
		fh.API = ""
	case value == "":
		delete(hosts, host)
	default:
		if err := checkForgeKind(value); err != nil {
			return c, fmt.Errorf("%s: %w", name, err)
		}
		fh.Kind = value
	}
	if fh.Kind != "" && (value != "" || api) {
		hosts[host] = fh
	}
	if len(hosts) == 0 {
		hosts = nil
	}
	c.Forge.Hosts = hosts
	return c, nil
}

// forgeSettings lists the forge hosts of c in `config list` order.
func (c Config) forgeSettings() []Setting {
	hosts := make([]string, 0, len(c.Forge.Hosts))
	for h := range c.Forge.Hosts {
		hosts = append(hosts, h)
	}
	slices.Sort(hosts)
	var out []Setting
	for _, h := range hosts {
		fh := c.Forge.Hosts[h]
		out = append(out, Setting{Key: forgeHostsKey + "." + h, Value: fh.Kind, Help: "the forge running on " + h})
		if fh.API != "" {
			out = append(out, Setting{Key: forgeHostsKey + "." + h + ".api", Value: fh.API, Help: "the API base URL of " + h})
		}
	}
	return out
}
