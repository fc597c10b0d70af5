package doctor

import (
	"context"
	"fmt"
	"runtime"
)

// Chromium is the check of the Chromium the agents' screenshot tool runs
// in their sandbox: path is the program found (tools.FindChromium), empty
// when there is none. Without it the tool is not offered, which breaks
// nothing else: the check then skips, saying how to install it.
func Chromium(ctx context.Context, path string) Check {
	c := Check{Name: "chromium"}
	if path == "" {
		c.Status = Skip
		c.Detail = "not installed, so agents get no screenshot tool; to offer it: apt-get install chromium"
		if runtime.GOOS != "linux" {
			c.Detail = "the screenshot tool runs Chromium in the Linux sandbox only"
		}
		return c
	}
	v, err := Version(ctx, path)
	if err != nil {
		c.Status, c.Detail = Fail, fmt.Sprintf("%s --version failed: %v; agents are offered a screenshot tool that cannot run", path, err)
		c.Fix = "reinstall chromium (apt-get install --reinstall chromium), or remove it"
		return c
	}
	c.Status, c.Detail = OK, fmt.Sprintf("%s (%s): agents get the screenshot tool", v, path)
	return c
}
