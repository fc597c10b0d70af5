//go:build darwin

package autostart

import "os"

// CurrentWorker returns the worker service of this machine: a LaunchAgent
// kept alive.
func CurrentWorker(home, dataDir string) (Platform, error) {
	return LaunchdWorker(home, os.Getuid()), nil
}
