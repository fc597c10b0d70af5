package doctor

import (
	"fmt"
	"time"
)

// MaxClockSkew is how far this machine's clock may be from a model
// provider's before the clock check warns: budgets per day, pauses until
// a provider's reset time and "last beat" ages all read the local clock.
const MaxClockSkew = 2 * time.Minute

// Clock is the check of the local clock against remote, the Date header
// of source's answer (a provider's name) read at local; remote is zero
// when no provider answered.
func Clock(local, remote time.Time, source string) Check {
	c := Check{Name: "clock"}
	if remote.IsZero() {
		c.Status, c.Detail = Skip, "no model provider answered, so there was no clock to compare with"
		return c
	}
	// The Date header has whole seconds: compare at that precision.
	skew := local.Truncate(time.Second).Sub(remote.Truncate(time.Second))
	dir := "ahead of"
	if skew < 0 {
		skew, dir = -skew, "behind"
	}
	if skew > MaxClockSkew {
		c.Status, c.Detail = Warn, fmt.Sprintf("this machine's clock is %s %s %s's", skew, dir, source)
		c.Fix = "turn on time synchronization (Linux: timedatectl set-ntp true; macOS and Windows: set the time automatically in the date and time settings)"
		return c
	}
	c.Status, c.Detail = OK, fmt.Sprintf("within %s of %s's", skew, source)
	return c
}
