//go:build linux

package autostart

// CurrentWorker returns the worker service of this machine: a systemd
// user service.
func CurrentWorker(home, dataDir string) (Platform, error) { return SystemdWorker(home), nil }
