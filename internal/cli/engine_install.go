package cli

import (
	"fmt"
	"path/filepath"

	"github.com/bonsai-run/bonsai/internal/engine"
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
