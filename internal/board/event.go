package board

import (
	"encoding/json"
	"time"
)

// EventType names what changed.
type EventType string

// The event types.
const (
	EventProjectCreated  EventType = "project.created"
	EventProjectUpdated  EventType = "project.updated"
	EventProjectArchived EventType = "project.archived"
	EventProjectRestored EventType = "project.restored"
	EventTicketCreated   EventType = "ticket.created"
	EventTicketUpdated   EventType = "ticket.updated"
	EventTicketMoved     EventType = "ticket.moved"
	// EventTicketLinked and EventTicketUnlinked are a dependency (Link)
	// added to or removed from a ticket.
	EventTicketLinked    EventType = "ticket.linked"
	EventTicketUnlinked  EventType = "ticket.unlinked"
	EventCommentAdded    EventType = "comment.added"
	EventCommentResolved EventType = "comment.resolved"
	EventApprovalAsked   EventType = "approval.requested"
	EventApprovalDecided EventType = "approval.decided"
	EventApprovalUsed    EventType = "approval.used"
	EventApprovalTold    EventType = "approval.told"
	EventRunStarted      EventType = "run.started"
	EventRunFinished     EventType = "run.finished"
	// EventRunStopRequested is a person asking a running run to stop;
	// the process running it stops it within a second or two.
	EventRunStopRequested EventType = "run.stop_requested"
	// EventLandingUpdated is a change to a ticket's landing: its pull
	// request, the commit it landed as, or a failure to land.
	EventLandingUpdated EventType = "landing.updated"
)

// Event is one entry of the append-only log of changes. IDs increase
// monotonically, so a reader follows the log with a cursor.
type Event struct {
	ID        int64           `json:"id"`
	Type      EventType       `json:"type"`
	ProjectID string          `json:"projectId,omitempty"`
	TicketID  string          `json:"ticketId,omitempty"`
	Actor     Actor           `json:"actor"`
	Data      json.RawMessage `json:"data,omitempty"` // type-specific details
	CreatedAt time.Time       `json:"createdAt"`
}
