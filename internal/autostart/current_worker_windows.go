//go:build windows

package autostart

// CurrentWorker returns the worker service of this machine: a Task
// Scheduler task started at logon.
func CurrentWorker(home, dataDir string) (Platform, error) { return TaskSchedulerWorker(dataDir), nil }
