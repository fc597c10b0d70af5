//go:build unix

package beneath

import (
	"errors"
	"syscall"
)

// The open flags of rootFS: never follow the last component, never block
// on a FIFO.
const (
	oNoFollow = syscall.O_NOFOLLOW
	oNonBlock = syscall.O_NONBLOCK
)

// isLoop reports whether err is O_NOFOLLOW's refusal of a link.
func isLoop(err error) bool { return errors.Is(err, syscall.ELOOP) || errors.Is(err, syscall.EMLINK) }
