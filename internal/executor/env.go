package executor

import (
	"path"
	"slices"
	"strings"
	"sync"
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
	if out, ok := cleaned.get(parent, extra); ok {
		return out
	}
	out := cleanEnv(parent, extra)
	cleaned.put(parent, extra, out)
	return slices.Clone(out)
}

// cleaned remembers CleanEnv's last answers: every command of every
// executor asks again with the same process environment and the same
// few extra lists, and matching each variable against both lists of
// patterns took 3% of a busy beat's CPU (bench/heartbeat -scale, N=200).
var cleaned envMemo

// envMemo remembers, for a few extra lists, the last parent environment
// asked for and its answer.
type envMemo struct {
	mu sync.Mutex
	m  map[string]envAnswer // by extra, joined with NULs
}

type envAnswer struct{ parent, extra, out []string }

// maxEnvMemo bounds the extra lists remembered: the projects' agent.env
// settings, few in practice; beyond it the memo starts afresh.
const maxEnvMemo = 64

func (c *envMemo) get(parent, extra []string) ([]string, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	a, ok := c.m[strings.Join(extra, "\x00")]
	if !ok || !slices.Equal(a.parent, parent) || !slices.Equal(a.extra, extra) {
		return nil, false
	}
	return slices.Clone(a.out), true // callers append to theirs
}

func (c *envMemo) put(parent, extra, out []string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil || len(c.m) >= maxEnvMemo {
		c.m = map[string]envAnswer{}
	}
	c.m[strings.Join(extra, "\x00")] = envAnswer{parent: slices.Clone(parent), extra: slices.Clone(extra), out: out}
}

// cleanEnv is CleanEnv without the memo.
func cleanEnv(parent, extra []string) []string {
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
