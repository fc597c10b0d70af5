package executor

import (
	"path"
	"strings"
)

// allowedEnv names the variables a command inherits from the parent.
var allowedEnv = []string{"PATH", "HOME", "LANG", "LC_*", "TERM", "TZ", "USER", "SHELL", "TMPDIR"}

// deniedEnv names variables that never reach a command, even when allowed by
// configuration: they carry credentials or change how programs load code.
var deniedEnv = []string{"*_API_KEY", "*_KEY", "*_TOKEN", "*_SECRET", "*_PASSWORD", "*_CREDENTIALS", "AWS_*", "LD_PRELOAD", "DYLD_*", "NODE_OPTIONS", "GIT_ASKPASS", "SSH_AUTH_SOCK",
	// the board's Postgres URL and libpq's password (issue 18)
	"BONSAI_DATABASE_URL", "PGPASSWORD"}

// fixedEnv keeps non-interactive tools from waiting for a terminal.
var fixedEnv = []string{"GIT_TERMINAL_PROMPT=0", "GIT_PAGER=cat", "PAGER=cat"}

// CleanEnv returns the environment a command gets: the variables of parent
// whose names match the allowlist or one of extra (names, "*" allowed),
// minus every name on the denylist, plus a few fixed settings that keep
// tools non-interactive. The denylist always wins.
func CleanEnv(parent, extra []string) []string {
	out := make([]string, 0, len(allowedEnv)+len(fixedEnv))
	for _, kv := range parent {
		name, _, ok := strings.Cut(kv, "=")
		if !ok || name == "" {
			continue
		}
		if Denied(name) || !(matchAny(allowedEnv, name) || matchAny(extra, name)) {
			continue
		}
		out = append(out, kv)
	}
	return append(out, fixedEnv...)
}

// Denied reports whether a variable name is on the denylist. Names are
// compared upper-cased, so my_api_key is denied too.
func Denied(name string) bool {
	return matchAny(deniedEnv, strings.ToUpper(name))
}

func matchAny(patterns []string, name string) bool {
	for _, p := range patterns {
		if ok, _ := path.Match(p, name); ok {
			return true
		}
	}
	return false
}
