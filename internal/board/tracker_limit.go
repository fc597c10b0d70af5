package board

import "time"

// TrackerLimit is a project's tracker rate limit, kept across beats: the
// sync asks nothing of the tracker before Until (docs/trackers.md).
type TrackerLimit struct {
	ProjectSlug string      `json:"project"`
	Tracker     TrackerKind `json:"tracker"`
	// Until is when the tracker said to ask again; zero for none.
	Until time.Time `json:"until,omitzero"`
	// Detail is the tracker's answer, for people.
	Detail    string    `json:"detail,omitempty"`
	UpdatedAt time.Time `json:"updatedAt,omitzero"`
}

// Waiting reports whether the limit still holds at now.
func (l TrackerLimit) Waiting(now time.Time) bool { return now.Before(l.Until) }
