package doctor

import (
	"fmt"
	"time"
)

// StaleBeats is how many heartbeat intervals may pass without a beat
// before the beat checks warn.
const StaleBeats = 3

// ServiceBeat is what the last beat the service fired left behind.
type ServiceBeat struct {
	StartedAt time.Time
	// Error is why it failed; empty when it ran.
	Error string
}

// Service is the check of the heartbeat service: installed under manager
// (systemd, launchd, schtasks) or not, and the last beat it fired (nil
// when none), against the interval between beats.
func Service(manager string, installed bool, last *ServiceBeat, now time.Time, interval time.Duration) Check {
	c := Check{Name: "service"}
	switch {
	case !installed:
		c.Status, c.Detail = Warn, fmt.Sprintf("the heartbeat service is not installed (%s): agents run only while 'bonsai up' runs", manager)
		c.Fix = "bonsai service install"
	case last == nil:
		c.Status, c.Detail = Warn, fmt.Sprintf("installed (%s), but it has fired no beat yet", manager)
		c.Fix = "wait one interval; if still nothing, 'bonsai service status' says what the service manager thinks and 'bonsai service logs' shows the beat's output"
	case last.Error != "":
		c.Status, c.Detail = Fail, fmt.Sprintf("installed (%s); its last beat, %s, failed: %s", manager, ago(now, last.StartedAt), last.Error)
		c.Fix = "fix what the error says, then see the next beat with 'bonsai service status'; 'bonsai service logs' shows the beat's output"
	case now.Sub(last.StartedAt) > StaleBeats*interval:
		c.Status, c.Detail = Warn, fmt.Sprintf("installed (%s), but its last beat was %s, and it fires one every %s", manager, ago(now, last.StartedAt), interval)
		c.Fix = "'bonsai service status' says what the service manager thinks; 'bonsai service install' again reloads the service"
	default:
		c.Status, c.Detail = OK, fmt.Sprintf("installed (%s); its last beat, %s, ran", manager, ago(now, last.StartedAt))
	}
	return c
}

// LastBeat is the check of the last beat of any process (bonsai up, the
// service, by hand): when it started (zero: never), against the interval;
// it warns of a stale beat only when the service is installed, since
// without it beats run only while 'bonsai up' does.
func LastBeat(now, last time.Time, interval time.Duration, serviceInstalled bool) Check {
	c := Check{Name: "last beat"}
	stale := last.IsZero() || now.Sub(last) > StaleBeats*interval
	switch {
	case last.IsZero() && !serviceInstalled:
		c.Status, c.Detail = Skip, "no beat has run yet; 'bonsai up' or the service runs them"
	case last.IsZero():
		c.Status, c.Detail = Warn, "no beat has run yet, though the service is installed"
		c.Fix = "'bonsai service status' and 'bonsai service logs' say why the service does not beat"
	case stale && serviceInstalled:
		c.Status, c.Detail = Warn, fmt.Sprintf("the last beat started %s; one is due every %s", ago(now, last), interval)
		c.Fix = "'bonsai service status' and 'bonsai service logs' say why the service stopped beating"
	case stale:
		c.Status, c.Detail = OK, fmt.Sprintf("the last beat started %s; beats run while 'bonsai up' runs", ago(now, last))
	default:
		c.Status, c.Detail = OK, fmt.Sprintf("the last beat started %s (every %s)", ago(now, last), interval)
	}
	return c
}

// ago says how long before now t was, to the second: "42s ago", "3h0m5s ago".
func ago(now, t time.Time) string {
	d := now.Sub(t).Round(time.Second)
	if d < 0 {
		return "in " + (-d).String() + " (a clock ahead of this one wrote it)"
	}
	return d.String() + " ago"
}

// ServiceFacts is what the CLI found of the heartbeat service.
type ServiceFacts struct {
	// Manager names the service manager (systemd, launchd, schtasks).
	Manager string
	// Err is why there is no service manager here; nil when there is one.
	Err error
	// Installed reports the service installed.
	Installed bool
	// Last is the last beat the service fired (nil when none), and
	// LastErr why its record could not be read.
	Last    *ServiceBeat
	LastErr error
}

// Services are the service's check and the last beat's: lastBeat is when
// the last beat of any process started (zero: never).
func Services(f ServiceFacts, now, lastBeat time.Time, interval time.Duration) []Check {
	switch {
	case f.Err != nil:
		return []Check{
			{Name: "service", Status: Skip, Detail: "no service manager here: " + f.Err.Error()},
			LastBeat(now, lastBeat, interval, false),
		}
	case f.LastErr != nil:
		return []Check{
			{Name: "service", Status: Fail, Detail: f.LastErr.Error(), Fix: "remove the file: the next beat of the service writes it again"},
			LastBeat(now, lastBeat, interval, f.Installed),
		}
	}
	return []Check{
		Service(f.Manager, f.Installed, f.Last, now, interval),
		LastBeat(now, lastBeat, interval, f.Installed),
	}
}
