//go:build darwin

package autostart

import "os"

// Current returns the service manager of this machine: launchd.
func Current(home, dataDir string) (Platform, error) { return Launchd(home, os.Getuid()), nil }
