package store

import (
	"context"

	"github.com/bonsai-run/bonsai/internal/board"
)

// TrackerLimits keep each project's tracker rate limit across beats
// (docs/trackers.md): the sync waits until it ends. They write no
// events.
type TrackerLimits interface {
	// TrackerLimit returns the project's limit; a zero one (ProjectSlug
	// set) when there is none. An unknown project is ENOTFOUND.
	TrackerLimit(ctx context.Context, projectSlug string) (board.TrackerLimit, error)
	// SaveTrackerLimit stores l as its project's, UpdatedAt set to the
	// transaction's time; one with no Until, Login or TokenSum removes it.
	SaveTrackerLimit(ctx context.Context, l board.TrackerLimit) (board.TrackerLimit, error)
}
