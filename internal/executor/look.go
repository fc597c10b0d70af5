package executor

import (
	"errors"
	"fmt"
	"os/exec"
	"strings"
)

// CheckArgv refuses an empty argv, and a program name without a slash
// that the host's PATH does not find (ErrCommandNotFound). Sandboxes that
// see the host's file system use it before they start one: the host's
// lookup is theirs, short of hidden directories.
func CheckArgv(argv []string) error {
	if len(argv) == 0 {
		return errors.New("exec: empty command")
	}
	if !strings.Contains(argv[0], "/") {
		if _, err := exec.LookPath(argv[0]); err != nil {
			return fmt.Errorf("run %s: %w", argv[0], ErrCommandNotFound)
		}
	}
	return nil
}
