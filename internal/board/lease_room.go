package board

import (
	"fmt"
	"strings"
	"time"
)

// CheckLeaseRoom says whether one more lease fits in project slug: at
// most max there (AgentSettings.Agents), where held are held (an expired
// lease counts until the next beat ends it), and across the board at most
// limit when above 0, where total are held. A full one is ECONFLICT
// naming the holders.
func CheckLeaseRoom(slug string, max int, held []Lease, total, limit int, now time.Time) error {
	if len(held) >= max {
		return projectFull(slug, max, held, now)
	}
	if limit > 0 && total >= limit {
		return Errorf(ECONFLICT, "%d agents already run, the limit", total)
	}
	return nil
}

// projectFull says that a project's max leases are held: by whom, and
// when one of them expired, that the next beat ends it.
func projectFull(slug string, max int, held []Lease, now time.Time) error {
	for _, l := range held {
		if !l.ExpiresAt.After(now) {
			return l.Held(now)
		}
	}
	if max == 1 {
		l := held[0]
		return Errorf(ECONFLICT, "project %s already has an agent: %s holds %s until %s",
			slug, l.Worker, l.Ref, l.ExpiresAt.Format(time.RFC3339))
	}
	who := make([]string, len(held))
	for i, l := range held {
		who[i] = fmt.Sprintf("%s holds %s", l.Worker, l.Ref)
	}
	return Errorf(ECONFLICT, "project %s already has its %d agents (max-agents %d): %s",
		slug, len(held), max, strings.Join(who, ", "))
}

// Held is the ECONFLICT error for l, a lease another worker holds, or
// held: an expired one waits for the next beat's ExpireLeases.
func (l Lease) Held(now time.Time) error {
	if !l.ExpiresAt.After(now) {
		return Errorf(ECONFLICT, "%s's lease on %s expired at %s; the next beat ends it and its run",
			l.Worker, l.Ref, l.ExpiresAt.Format(time.RFC3339))
	}
	return Errorf(ECONFLICT, "%s holds %s until %s", l.Worker, l.Ref, l.ExpiresAt.Format(time.RFC3339))
}
