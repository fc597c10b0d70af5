//go:build !linux && !darwin && !windows

package autostart

import (
	"fmt"
	"runtime"
)

// Current reports that this operating system has no supported service
// manager; run `bonsai up` or a cron job instead.
func Current(home, dataDir string) (Platform, error) {
	return Platform{}, fmt.Errorf("no service manager supported on %s; fire `bonsai heartbeat` from cron, or run `bonsai up`", runtime.GOOS)
}
