package cli

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/engine"
	"github.com/bonsai-run/bonsai/internal/executor/sandbox"
)

// engineLocator finds the engine CLIs on the runtime's PATH, once per
// program per process.
var engineLocator = engine.NewLocator(nil)

// engineLocate is engine.Options.Locate: the CLI engineLocator finds,
// with links resolved, so that the sandbox needs its install directory
// only (engine.InstallDirs), not the directory of a link to it (nvm's
// bin, ~/.local/bin).
func engineLocate(e engine.Engine) (string, error) {
	bin, err := engineLocator.Locate(e)
	if err != nil {
		return "", err
	}
	real, err := filepath.EvalSymlinks(bin)
	if err != nil {
		return "", fmt.Errorf("the %s CLI %s: %w", e.Name(), bin, err)
	}
	return real, nil
}

// cliBinds are the read-only binds that let project p's engine CLI start
// in the sandbox, which hides the home and has a /tmp of its own: the
// install directories (engine.InstallDirs) that lie there. None for
// Bonsai's own agent, or when the CLI is missing (the run says so). An
// install directory the sandbox cannot show without showing the whole
// home or the data directory is an error naming the fix.
func (x *agentExecutors) cliBinds(p board.Project) ([]sandbox.Bind, error) {
	e, ok := engineCLIs[p.Agent.Engine]
	if !ok || x.locate == nil {
		return nil, nil
	}
	bin, err := x.locate(e)
	if err != nil {
		return nil, nil // the engine's run fails with the install command
	}
	_, dirs, err := engine.InstallDirs(bin, exec.LookPath)
	if err != nil {
		return nil, err
	}
	hidden := []string{x.home, os.TempDir(), "/tmp", x.data.Path()}
	var binds []sandbox.Bind
	for _, d := range dirs {
		if !withinAny(d, hidden) {
			continue // the sandbox shows it read-only already
		}
		if covers(d, x.home) || covers(d, x.data.Path()) || withinAny(d, []string{x.data.Path()}) {
			return nil, fmt.Errorf("the %s CLI %s needs %s, which the sandbox cannot show without the home or Bonsai's data directory: "+
				"install it in a directory of its own (%s, with npm's prefix outside the home, or under /usr/local), or set the project's sandbox off",
				e.Name(), bin, d, e.Install())
		}
		binds = append(binds, sandbox.Bind{Host: d, ReadOnly: true})
	}
	return binds, nil
}

// withinAny reports whether p is one of dirs or below one ("" dirs
// ignored).
func withinAny(p string, dirs []string) bool {
	for _, d := range dirs {
		if d != "" && within(p, d) {
			return true
		}
	}
	return false
}

// covers reports whether dir is p or above it.
func covers(dir, p string) bool { return p != "" && within(p, dir) }
