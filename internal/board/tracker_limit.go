package board

import "time"

// TrackerLimit is what the sync keeps of a project's tracker account
// across beats (docs/trackers.md): its rate limit (the sync asks nothing
// of the tracker before Until) and the token's own login.
type TrackerLimit struct {
	ProjectSlug string      `json:"project"`
	Tracker     TrackerKind `json:"tracker"`
	// Until is when the tracker said to ask again; zero for none.
	Until time.Time `json:"until,omitzero"`
	// Detail is the tracker's answer, for people.
	Detail string `json:"detail,omitempty"`
	// Login is the token's own login, read once per token: only its
	// marked comments are Bonsai's. TokenSum names the token it was
	// read with (a digest, never the token); "" when never read.
	Login     string    `json:"login,omitempty"`
	TokenSum  string    `json:"-"`
	UpdatedAt time.Time `json:"updatedAt,omitzero"`
}

// Waiting reports whether the limit still holds at now.
func (l TrackerLimit) Waiting(now time.Time) bool { return now.Before(l.Until) }

// Kept is l as a store keeps it, Until at the millisecond and Detail cut
// by ClipDetail, and whether there is anything to keep: a limit without
// a time, a login or a token sum is none.
func (l TrackerLimit) Kept() (TrackerLimit, bool) {
	if l.Until.IsZero() && l.Login == "" && l.TokenSum == "" {
		return TrackerLimit{ProjectSlug: l.ProjectSlug}, false
	}
	l.Until, l.Detail = toMillis(l.Until), ClipDetail(l.Detail)
	return l, true
}
