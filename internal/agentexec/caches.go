package agentexec

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/bonsai-run/bonsai/internal/config"
)

// ToolchainCaches are the variables of the toolchain caches a sandbox
// keeps between runs: each gets a writable directory of its own under
// the data directory, bound into the sandbox's home. GOPATH is not among
// them: Go defaults it to $HOME/go, which the sandbox's writable home
// holds for one command, and GOMODCACHE keeps the downloads.
var ToolchainCaches = []string{"GOCACHE", "GOMODCACHE", "npm_config_cache", "PIP_CACHE_DIR", "CARGO_HOME"}

// runCacheDir is the directory under caches/ holding the caches of
// `bonsai run --sandbox`; the underscore keeps it apart from every
// project slug.
const runCacheDir = "_run"

// cachesUnder maps each toolchain cache variable to a directory below
// dir, creating them 0700 like the rest of the data directory. One
// project's sandbox binds its own directory only, and the data directory
// around it is hidden, so no project sees another's caches.
func cachesUnder(dir string) (map[string]string, error) {
	m := make(map[string]string, len(ToolchainCaches))
	for _, k := range ToolchainCaches {
		m[k] = filepath.Join(dir, strings.ToLower(k))
		if err := os.MkdirAll(m[k], 0o700); err != nil {
			return nil, fmt.Errorf("create the toolchain caches: %w", err)
		}
	}
	return m, nil
}

// runCaches is the cache directory of `bonsai run --sandbox` in the
// directory cwd: its base name, for people looking, and a hash of the
// whole path, so two checkouts named alike do not share.
func runCaches(d config.Dir, cwd string) string {
	sum := sha256.Sum256([]byte(cwd))
	name := strings.Map(func(r rune) rune {
		if 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9' || r == '-' || r == '_' {
			return r
		}
		return '-'
	}, filepath.Base(cwd))
	return d.Path("caches", runCacheDir, name+"-"+hex.EncodeToString(sum[:4]))
}

// GitDirOf is the git directory of clone to bind into the sandbox; ""
// (none) for a checkout that is no worktree of a clone (Checkout's).
func GitDirOf(clone string) string {
	if clone == "" {
		return ""
	}
	return filepath.Join(clone, ".git")
}
