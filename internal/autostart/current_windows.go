//go:build windows

package autostart

// Current returns the service manager of this machine: Task Scheduler.
func Current(home, dataDir string) (Platform, error) { return TaskScheduler(dataDir), nil }
