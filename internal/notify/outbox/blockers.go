package outbox

import (
	"context"
	"log/slog"
	"regexp"
	"strings"

	"github.com/bonsai-run/bonsai/internal/store"
)

// untilTime matches the changing part of a pause's reason ("… until
// 2026-05-01T12:00:00Z"), so one cause stays one cause while it lasts.
var untilTime = regexp.MustCompile(`\s+until \S+`)

// transient are skip reasons that are not a cause people must act on.
var transient = []string{"no time left in this beat", "a process of its previous run still runs"}

// Attempt is what a beat did with one ticket it looked at.
type Attempt struct {
	// Ticket is its reference, "demo#3".
	Ticket string
	// Skipped is why its agent did not run; empty when it ran.
	Skipped string
}

// NoteBlockers records, per project the beat looked at, why its agents
// could not run, so each new cause notifies once (agents.blocked); a
// project whose agent ran clears its causes. Failures are logged.
func NoteBlockers(ctx context.Context, s store.Store, attempts []Attempt, log *slog.Logger) {
	causes := map[string][]string{}
	for _, r := range attempts {
		slug, _, _ := strings.Cut(r.Ticket, "#")
		switch {
		case isTransient(r.Skipped):
			// says nothing about whether the project's agents can run
		case r.Skipped == "":
			if _, ok := causes[slug]; !ok {
				causes[slug] = nil // the agent ran: forget the project's causes
			}
		default:
			causes[slug] = append(causes[slug], untilTime.ReplaceAllString(r.Skipped, ""))
		}
	}
	for slug, cs := range causes {
		if _, err := s.NoteBlockers(ctx, slug, cs); err != nil {
			log.Error("note why agents cannot run", "project", slug, "err", err)
		}
	}
}

func isTransient(reason string) bool {
	for _, t := range transient {
		if strings.HasPrefix(reason, t) {
			return true
		}
	}
	return false
}
