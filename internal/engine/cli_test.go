package engine_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// npmBin is where .ci/run installs the engine CLIs.
func npmBin() string {
	if d := os.Getenv("BONSAI_ENGINES_BIN"); d != "" {
		return d
	}
	home, _ := os.UserHomeDir()
	return filepath.Join(home, ".cache", "bonsai-ci", "npm", "node_modules", ".bin")
}

// requireCLI returns the path of an engine CLI: the test fails when CI
// is set and it is missing (.ci/run installs it), else it is skipped.
func requireCLI(t *testing.T, program string) string {
	t.Helper()
	p := filepath.Join(npmBin(), program)
	if _, err := os.Stat(p); err == nil {
		return p
	}
	if p, err := exec.LookPath(program); err == nil {
		return p
	}
	if os.Getenv("CI") == "true" {
		t.Fatalf("%s is not installed in %s: .ci/run installs it with npm", program, npmBin())
	}
	t.Skipf("%s is not installed (npm install --prefix ~/.cache/bonsai-ci/npm …; see .ci/run)", program)
	return ""
}
