//go:build !linux

package execserver

import (
	"fmt"
	"os"
	"runtime"
)

// Main is the sandbox's command server and proxy bridge, which run on
// Linux only; elsewhere it says so and returns 2.
func Main(args []string) int {
	fmt.Fprintf(os.Stderr, "bonsai: the sandbox's command server runs on Linux only, not %s\n", runtime.GOOS)
	return 2
}
