//go:build linux

package autostart

// Current returns the service manager of this machine: systemd.
func Current(home, dataDir string) (Platform, error) { return Systemd(home), nil }
