//go:build !linux && !darwin && !windows

package autostart

import (
	"fmt"
	"runtime"
)

// CurrentWorker reports that the worker service is not supported here yet;
// run `bonsai worker` from a task or service of your own.
func CurrentWorker(home, dataDir string) (Platform, error) {
	return Platform{}, fmt.Errorf("the worker service is not supported on %s yet; run `bonsai worker` from a service of your own, or install the heartbeat service without --worker", runtime.GOOS)
}
