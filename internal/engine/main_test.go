package engine_test

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// TestMain gives the engine CLIs a home of their own, as the scripts do:
// with the sandbox off they see the test process's HOME, and the
// developer's would make the tests depend on its ~/.bashrc (Claude Code's
// shell sources it; a stale lock in it once made every command wait a
// minute) and its ~/.npmrc. The home's .npmrc keeps npm offline: OpenCode
// installs @opencode-ai/plugin into every new config directory it may
// write, which took 20–75 s of downloads per test here, and the tests'
// plugin (the policy hook) imports nothing. The install then fails at
// once, which OpenCode only logs.
func TestMain(m *testing.M) {
	os.Exit(run(m))
}

func run(m *testing.M) int {
	if os.Getenv("BONSAI_ENGINES_BIN") == "" {
		os.Setenv("BONSAI_ENGINES_BIN", npmBin()) // before HOME changes
	}
	home, err := os.MkdirTemp("", "bonsai-engine-test-home-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(home)
	if err := os.WriteFile(filepath.Join(home, ".npmrc"), []byte("offline=true\n"), 0o644); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	os.Setenv("HOME", home)
	return m.Run()
}
