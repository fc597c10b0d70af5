package web

import (
	"context"
	"time"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/store"
)

// Store is what the web UI reads and writes. It is a subset of store.Store:
// the UI is a full client of the board (people edit, archive and unarchive
// projects from it), but it never starts runs or resolves comments.
type Store interface {
	store.Links
	CreateProject(ctx context.Context, p board.Project) (board.Project, error)
	Project(ctx context.Context, slug string) (board.Project, error)
	Projects(ctx context.Context, f store.ProjectFilter) ([]board.Project, error)
	UpdateProject(ctx context.Context, slug string, u board.ProjectPatch) (board.Project, error)
	ArchiveProject(ctx context.Context, slug string) (board.Project, error)
	RestoreProject(ctx context.Context, slug string) (board.Project, error)
	CreateTicket(ctx context.Context, t board.Ticket, actor board.Actor) (board.Ticket, error)
	Ticket(ctx context.Context, ref board.Ref) (board.Ticket, error)
	Tickets(ctx context.Context, f store.TicketFilter) ([]board.Ticket, error)
	CountTickets(ctx context.Context, f store.TicketFilter) (int, error)
	TicketCounts(ctx context.Context) (map[string]map[board.State]int, error)
	UpdateTicket(ctx context.Context, ref board.Ref, u board.TicketPatch, actor board.Actor) (board.Ticket, error)
	MoveTicket(ctx context.Context, ref board.Ref, req board.MoveRequest, authorName string) (board.Ticket, error)
	AddComment(ctx context.Context, ref board.Ref, c board.Comment) (board.Comment, error)
	Comments(ctx context.Context, ref board.Ref) ([]board.Comment, error)
	Approvals(ctx context.Context, ref board.Ref) ([]board.Approval, error)
	DecideApproval(ctx context.Context, ref board.Ref, id string, d board.ApprovalDecision) (board.Approval, error)
	Runs(ctx context.Context, ref board.Ref) ([]board.Run, error)
	RecentRuns(ctx context.Context, limit int) ([]board.Run, error)
	RunningRuns(ctx context.Context) ([]board.Run, error)
	RequestStop(ctx context.Context, ref board.Ref, by string) (board.Run, error)
	Spend(ctx context.Context, projectSlug string, since time.Time) (store.Spend, error)
	Overview(ctx context.Context, f store.ProjectFilter) ([]store.ProjectOverview, error)
	Events(ctx context.Context, afterID int64, limit int) ([]board.Event, error)
	// Landing is a ticket's landing record, for the ticket page.
	Landing(ctx context.Context, ref board.Ref) (board.Landing, error)
	// Landings lists a project's landings, for the pull requests on its
	// cards.
	Landings(ctx context.Context, f store.LandingFilter) ([]board.Landing, error)
	// TranscriptLines and Live read the transcripts and live files of
	// agents on other machines, on a board they share (transcript_cache.go).
	TranscriptLines(ctx context.Context, ticketID string, from int64, fn func(n int64, line []byte) error) error
	Live(ctx context.Context, ticketID string) (data []byte, version int64, err error)
	// TrackerSync is where a project's issue tracker sync stands, for the
	// banner.
	TrackerSync(ctx context.Context, projectSlug string) (board.TrackerSync, error)
	// Hooks are the inbound webhooks and their delivery log.
	store.Hooks
	// Attachments are the files on tickets (attachment.go).
	store.Attachments
}

var _ Store = store.Store(nil)
