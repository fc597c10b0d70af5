package board

import "time"

// Check refuses a task kind Bonsai does not know.
func (k TaskKind) Check() error {
	switch k {
	case TaskResearch, TaskImplement, TaskFeedback, TaskReply, TaskConflict, TaskVerify:
		return nil
	}
	return Errorf(EINVALID, "unknown task %q; use research, implement, feedback or reply", k)
}

// Start checks that the run r asks to start on ticket t names t's project
// (or none) and returns it as it starts: with ID id, t's project, running since now, no usage or error
// yet, and t's session key unless r gives one.
func (r Run) Start(t Ticket, id string, now time.Time) (Run, error) {
	if r.ProjectID != "" && r.ProjectID != t.ProjectID {
		return r, Errorf(EINVALID, "run names project %q but ticket %s belongs to %q", r.ProjectID, t.Ref(), t.ProjectID)
	}
	if r.SessionKey == "" {
		r.SessionKey = SessionKey(t.ProjectID, t.ID)
	}
	r.ID, r.ProjectID, r.Status, r.StartedAt, r.FinishedAt = id, t.ProjectID, RunRunning, now, nil
	r.ProjectSlug, r.TicketNumber, r.Usage, r.Error, r.Turns = t.ProjectSlug, t.Number, Usage{}, "", 0
	return r, nil
}
