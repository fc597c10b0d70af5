package store

import (
	"context"

	"github.com/bonsai-run/bonsai/internal/board"
)

// Trackers keep a project's issue tracker sync (docs/trackers.md): where
// its conditional list stands, which ticket each issue became, and the
// comments delivered from the issue or posted to it, so that a crash
// between two steps never delivers or creates anything twice. The sync
// state writes no events; the tickets and comments it creates write
// theirs.
type Trackers interface {
	// TrackerSync returns where the project's sync stands; a zero one
	// (ProjectSlug set) when it never ran. An unknown project is
	// ENOTFOUND.
	TrackerSync(ctx context.Context, projectSlug string) (board.TrackerSync, error)
	// SaveTrackerSync stores s as its project's sync state, UpdatedAt
	// set to the transaction's time.
	SaveTrackerSync(ctx context.Context, s board.TrackerSync) (board.TrackerSync, error)
	// CreateLinkedTicket creates ticket t as the system (CreateTicket)
	// and links it to issue l (l.Ref, Since and UpdatedAt are set) in one
	// transaction. An issue of the project already linked is ECONFLICT,
	// and nothing is created.
	CreateLinkedTicket(ctx context.Context, t board.Ticket, l board.IssueLink) (board.Ticket, board.IssueLink, error)
	// IssueLinks lists the project's links by ticket number.
	IssueLinks(ctx context.Context, projectSlug string) ([]board.IssueLink, error)
	// IssueLink returns the ticket's link; none is ENOTFOUND.
	IssueLink(ctx context.Context, ref board.Ref) (board.IssueLink, error)
	// SaveIssueLink stores what changed of the ticket's link: its
	// reference, URL, cursor, seen, mirrored state and status. A ticket
	// without one is ENOTFOUND.
	SaveIssueLink(ctx context.Context, l board.IssueLink) (board.IssueLink, error)
	// DeliverIssueComment adds c to the ticket (AddComment) and records
	// that the tracker's comment externalID was delivered, in one
	// transaction; one delivered before is ECONFLICT and nothing is
	// added.
	DeliverIssueComment(ctx context.Context, ref board.Ref, c board.Comment, externalID string) (board.Comment, error)
	// RecordPostedComment records that the ticket's comment commentID
	// (or its plan: board.PostedPlanPrefix and the plan's digest) was
	// posted to the issue as the tracker's comment externalID. Either
	// recorded before is ECONFLICT; a commentID that is neither a comment
	// of the ticket nor a plan is ENOTFOUND.
	RecordPostedComment(ctx context.Context, ref board.Ref, commentID, externalID string) error
	// PostedComments returns the ticket's comments posted to its issue:
	// the ticket's comment id → the tracker's.
	PostedComments(ctx context.Context, ref board.Ref) (map[string]string, error)
}
