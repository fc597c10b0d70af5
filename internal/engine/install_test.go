package engine_test

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/bonsai-run/bonsai/internal/engine"
)

// An npm CLI under an nvm-like prefix: the path to run is the script the
// bin link names, and the sandbox needs the node_modules holding its
// package (a launcher runs a sibling package's binary) and the node that
// `#!/usr/bin/env node` finds on PATH, where it is and where it links to.
func TestInstallDirsOfAnNpmCLI(t *testing.T) {
	t.Parallel()
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	prefix := filepath.Join(dir, ".nvm", "versions", "node", "v22")
	script := filepath.Join(prefix, "lib", "node_modules", "@acme", "cli", "bin", "cli.js")
	realNode := filepath.Join(dir, "node-dist", "node")
	node := filepath.Join(prefix, "bin", "node")
	link := filepath.Join(prefix, "bin", "cli")
	for _, p := range []string{script, realNode, link} {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(script, []byte("#!/usr/bin/env -S node --no-warnings\nconsole.log(1)\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(realNode, []byte("\x7fELF"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(realNode, node); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join("..", "lib", "node_modules", "@acme", "cli", "bin", "cli.js"), link); err != nil {
		t.Fatal(err)
	}
	lookPath := func(name string) (string, error) { return filepath.Join(prefix, "bin", name), nil }
	run, dirs, err := engine.InstallDirs(link, lookPath)
	if err != nil {
		t.Fatal(err)
	}
	if run != script {
		t.Errorf("run %s, want %s", run, script)
	}
	want := []string{filepath.Join(dir, "node-dist"), filepath.Join(prefix, "bin"), filepath.Join(prefix, "lib", "node_modules"), "/usr/bin"}
	slices.Sort(want)
	if !slices.Equal(dirs, want) {
		t.Errorf("dirs\n%q\nwant\n%q", dirs, want)
	}
	// A native binary needs its own directory only.
	if _, dirs, err := engine.InstallDirs(realNode, lookPath); err != nil || !slices.Equal(dirs, []string{filepath.Join(dir, "node-dist")}) {
		t.Errorf("a binary: %q, %v", dirs, err)
	}
}
