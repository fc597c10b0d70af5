package mcpclient

import (
	"fmt"
	"slices"

	"github.com/bonsai-run/bonsai/internal/config"
)

// Configured returns the named servers of config.json's mcp.servers as
// Servers, their ${credential:…} and ${env:…} references filled in by
// secret. A server whose secret is missing, or that is not configured,
// has its Err set, saying how to fix it. secrets are the values filled
// in, for the caller to redact.
func Configured(configured map[string]config.MCPServer, names []string, secret func(kind, name string) (string, error)) (servers []Server, secrets []string) {
	for _, n := range names {
		cs, ok := configured[n]
		if !ok {
			servers = append(servers, Server{Name: n, Err: fmt.Errorf("it is enabled but not configured in config.json; add it with 'bonsai config set mcp.servers.%s.command PROGRAM'", n)})
			continue
		}
		var missing error
		resolve := func(v string) string {
			out, err := config.ExpandRefs(v, func(kind, name string) (string, error) {
				s, err := secret(kind, name)
				if err == nil {
					secrets = append(secrets, s)
				}
				return s, err
			})
			if err != nil && missing == nil {
				missing = err
			}
			return out
		}
		s := Server{Name: n, URL: cs.URL}
		if cs.Command != "" {
			s.Command = append([]string{cs.Command}, cs.Args...)
		}
		keys := make([]string, 0, len(cs.Env))
		for k := range cs.Env {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for _, k := range keys {
			s.Env = append(s.Env, k+"="+resolve(cs.Env[k]))
		}
		if len(cs.Headers) > 0 {
			s.Headers = map[string]string{}
			for k, v := range cs.Headers {
				s.Headers[k] = resolve(v)
			}
		}
		s.Err = missing
		servers = append(servers, s)
	}
	return servers, secrets
}
