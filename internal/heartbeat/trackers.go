package heartbeat

import (
	"context"
	"log/slog"
)

// Trackers bring the issues of projects' trackers in as tickets
// (docs/trackers.md), each beat before the pick and with no model call:
// one conditional request per tracker when nothing changed.
type Trackers interface {
	// SyncTrackers syncs the trackers of project ("" for every active
	// project with one): new matching issues become tickets, comments of
	// people who may steer reach their tickets, the tickets' new
	// questions, status and completion comments and states reach the
	// issues, an issue closed by hand stops its ticket.
	SyncTrackers(ctx context.Context, project string) TrackerSync
	// PostTrackers posts to the issues what the runs of project ("" for
	// all) said and mirrors the states they moved to, reading no list.
	PostTrackers(ctx context.Context, project string)
}

// TrackerSync says what syncing the trackers did in a beat.
type TrackerSync struct {
	// Trackers counts the projects synced; Unchanged those whose list
	// had not changed.
	Trackers  int `json:"trackers"`
	Unchanged int `json:"unchanged"`
	// Created counts the tickets made from new issues; Delivered the
	// comments given to tickets; Held the comments of people who may
	// not steer, counted and named only; Posted the ticket comments
	// posted to issues; Closed the tickets stopped by an issue closed by
	// hand.
	Created   int `json:"created,omitempty"`
	Delivered int `json:"delivered,omitempty"`
	Held      int `json:"held,omitempty"`
	Posted    int `json:"posted,omitempty"`
	Closed    int `json:"closed,omitempty"`
	// Failures are the projects whose tracker could not be synced, with
	// the error, for a person to see.
	Failures []TrackerFailure `json:"failures,omitempty"`
}

// TrackerFailure is a project whose tracker a beat could not sync.
type TrackerFailure struct {
	Project string `json:"project"`
	Error   string `json:"error"`
}

// syncTrackers runs the tracker sync of a beat of project ("": all); nil
// when there are no trackers (trs nil) or the beat runs one ticket.
func syncTrackers(ctx context.Context, trs Trackers, project string, oneTicket bool, log *slog.Logger) *TrackerSync {
	if trs == nil || oneTicket {
		return nil
	}
	s := trs.SyncTrackers(ctx, project)
	for _, f := range s.Failures {
		log.Warn("tracker not synced", "project", f.Project, "err", f.Error)
	}
	if s.Trackers > 0 {
		log.Info("synced trackers", "trackers", s.Trackers, "unchanged", s.Unchanged, "created", s.Created,
			"delivered", s.Delivered, "posted", s.Posted, "closed", s.Closed)
	}
	return &s
}
