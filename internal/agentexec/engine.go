package agentexec

import (
	"fmt"
	"os"
	"os/exec"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/engine"
	"github.com/bonsai-run/bonsai/internal/executor"
)

// CLIBinds are the read-only binds that let project p's engine CLI start
// in the sandbox, which hides the home and has a /tmp of its own: the
// install directories (engine.InstallDirs) that lie there. None for
// Bonsai's own agent, or when the CLI is missing (the run says so). An
// install directory the sandbox cannot show without showing the whole
// home or the data directory is an error naming the fix.
func (x *Executors) CLIBinds(p board.Project) ([]Bind, error) {
	e, ok := x.Engines[p.Agent.Engine]
	if !ok || x.Locate == nil {
		return nil, nil
	}
	bin, err := x.Locate(e)
	if err != nil {
		return nil, nil // the engine's run fails with the install command
	}
	_, dirs, err := engine.InstallDirs(bin, exec.LookPath)
	if err != nil {
		return nil, err
	}
	hidden := []string{x.Home, os.TempDir(), "/tmp", x.Data.Path()}
	var binds []Bind
	for _, d := range dirs {
		if !withinAny(d, hidden) {
			continue // the sandbox shows it read-only already
		}
		if covers(d, x.Home) || covers(d, x.Data.Path()) || withinAny(d, []string{x.Data.Path()}) {
			return nil, fmt.Errorf("the %s CLI %s needs %s, which the sandbox cannot show without the home or Bonsai's data directory: "+
				"install it in a directory of its own (%s, with npm's prefix outside the home, or under /usr/local), or set the project's sandbox off",
				e.Name(), bin, d, e.Install())
		}
		binds = append(binds, Bind{Host: d, ReadOnly: true})
	}
	return binds, nil
}

// withinAny reports whether p is one of dirs or below one ("" dirs
// ignored).
func withinAny(p string, dirs []string) bool {
	for _, d := range dirs {
		if d != "" && executor.Within(p, d) {
			return true
		}
	}
	return false
}

// covers reports whether dir is p or above it.
func covers(dir, p string) bool { return p != "" && executor.Within(p, dir) }
