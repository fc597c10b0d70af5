package cli_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/rogpeppe/go-internal/testscript"
)

// npmMCPDir is where .ci/run installs the npm MCP packages the tests use
// (issue 15): $BONSAI_MCP_NPM, else ~/.cache/bonsai-ci/npm-mcp.
func npmMCPDir() string {
	if d := os.Getenv("BONSAI_MCP_NPM"); d != "" {
		return d
	}
	home, _ := os.UserHomeDir()
	return filepath.Join(home, ".cache", "bonsai-ci", "npm-mcp")
}

// npmMCPCondition is the script condition [npmmcp:<bin>]: whether .ci/run
// installed the npm program. A missing one is an error when CI=true, so
// the script fails instead of skipping.
func npmMCPCondition(bin string) (bool, error) {
	if _, err := os.Stat(filepath.Join(npmMCPDir(), "node_modules", ".bin", bin)); err != nil {
		if os.Getenv("CI") == "true" {
			return false, fmt.Errorf("%s is missing (CI=true): .ci/run installs it into %s", bin, npmMCPDir())
		}
		return false, nil
	}
	return true, nil
}

// cmdNpmMCP sets VAR to the path of an npm MCP program .ci/run installs:
// npmmcp <VAR> <bin>. Guard it with [!npmmcp:<bin>] skip.
func cmdNpmMCP(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: npmmcp <VAR> <bin>")
	}
	p := filepath.Join(npmMCPDir(), "node_modules", ".bin", args[1])
	if _, err := os.Stat(p); err != nil {
		ts.Fatalf("%s is not installed in %s: .ci/run installs it", args[1], npmMCPDir())
	}
	ts.Setenv(args[0], p)
}

// cmdWebToken sets VAR to the data directory's web token: webtoken <VAR>.
func cmdWebToken(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: webtoken <VAR>")
	}
	b, err := os.ReadFile(filepath.Join(ts.Getenv("BONSAI_DATA_DIR"), "web-token"))
	ts.Check(err)
	ts.Setenv(args[0], strings.TrimSpace(string(b)))
}
