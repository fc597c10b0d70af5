//go:build !linux

package sandbox

import (
	"fmt"
	"os"
	"runtime"
)

// BridgeMain is the sandbox's proxy bridge, which runs on Linux only;
// elsewhere it says so and returns 2.
func BridgeMain(args []string) int {
	fmt.Fprintf(os.Stderr, "bonsai: the sandbox bridge runs on Linux only, not %s\n", runtime.GOOS)
	return 2
}
