//go:build !linux && !darwin && !freebsd && !windows

package doctor

import (
	"fmt"
	"runtime"
)

// FreeBytes is not measured on this operating system.
func FreeBytes(string) (uint64, error) {
	return 0, fmt.Errorf("not measured on %s", runtime.GOOS)
}
