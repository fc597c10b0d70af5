package cli_test

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/rogpeppe/go-internal/testscript"
)

// enginesBin is where .ci/run installs the engine CLIs: an npm prefix in
// ~/.cache/bonsai-ci/npm, or $BONSAI_ENGINES_BIN.
func enginesBin() string {
	if dir := os.Getenv("BONSAI_ENGINES_BIN"); dir != "" {
		return dir
	}
	home, _ := os.UserHomeDir()
	return filepath.Join(home, ".cache", "bonsai-ci", "npm", "node_modules", ".bin")
}

// engineCondition is [engine:<program>]: the engine CLI is installed.
// Missing, it is an error (the script fails) when CI=true, so that CI
// never skips the engines' tests.
func engineCondition(program string) (bool, error) {
	if _, err := os.Stat(filepath.Join(enginesBin(), program)); err == nil {
		return true, nil
	}
	if os.Getenv("CI") == "true" {
		return false, fmt.Errorf("%s is not installed in %s: .ci/run installs it with npm", program, enginesBin())
	}
	return false, nil
}

// cmdEngine puts the engine CLIs first on the script's PATH and keeps npm
// offline in the script's home: engine. With the sandbox off OpenCode
// installs @opencode-ai/plugin from npm into every new config directory
// it may write (20–75 s of downloads a ticket here); the scripts' plugin,
// the policy hook, imports nothing, and a failed install is only logged.
func cmdEngine(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 0 {
		ts.Fatalf("usage: engine")
	}
	ts.Setenv("PATH", enginesBin()+string(os.PathListSeparator)+ts.Getenv("PATH"))
	npmrc := filepath.Join(ts.Getenv("HOME"), ".npmrc")
	if _, err := os.Stat(npmrc); os.IsNotExist(err) {
		ts.Check(os.WriteFile(npmrc, []byte("offline=true\n"), 0o644))
	}
}
