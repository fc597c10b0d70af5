package tickettool

import (
	"context"
	"sync"
	"time"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/executor"
	"github.com/bonsai-run/bonsai/internal/store"
	"github.com/bonsai-run/bonsai/internal/tool"
)

// Board is what the ticket tools read and write.
type Board interface {
	Ticket(ctx context.Context, ref board.Ref) (board.Ticket, error)
	AddComment(ctx context.Context, ref board.Ref, c board.Comment) (board.Comment, error)
	UpdateTicket(ctx context.Context, ref board.Ref, u board.TicketPatch, actor board.Actor) (board.Ticket, error)
	MoveTicket(ctx context.Context, ref board.Ref, req board.MoveRequest, authorName string) (board.Ticket, error)
	Runs(ctx context.Context, ref board.Ref) ([]board.Run, error)
	// TicketLinks and CreateSubTickets are ticket_split's.
	TicketLinks(ctx context.Context, ref board.Ref) (board.Links, error)
	CreateSubTickets(ctx context.Context, s store.SubTickets) ([]board.Ticket, error)
}

// DefaultVerifyTimeout bounds the project's verify command, like the bash
// tool's longest timeout.
const DefaultVerifyTimeout = 10 * time.Minute

// Config is what the tools of one run share.
type Config struct {
	Board Board
	// Ref is the ticket being worked.
	Ref board.Ref
	// Author is the author name of the agent's comments and moves.
	Author string
	// Exec runs commands in the ticket's worktree.
	Exec executor.Executor
	// Base is the ref the ticket's branch started from, e.g. "origin/main".
	Base string
	// Verify is the project's verify command, run with bash in the
	// worktree before a move to VERIFICATION; empty for none.
	Verify string
	// Update, when not nil, brings the default branch into the ticket
	// branch before the verify command runs (docs/landing.md, "Branches
	// kept current"). It returns the conflicting files when the two
	// conflict (the merge or rebase aborted, nothing changed), with what
	// to do about them.
	Update func(ctx context.Context) (conflicts []string, help string, err error)
	// VerifyTimeout bounds Verify; zero means DefaultVerifyTimeout.
	VerifyTimeout time.Duration
	// Task is what the run is for: ticket_split is among the tools of a
	// research task only.
	Task board.TaskKind
	// SplitState is the state ticket_split's sub-tickets start in; empty
	// means IN_PROGRESS. RESEARCH where a person approves each plan.
	SplitState board.State
	// RunUsage reports the usage of the current run so far (every
	// response, the current one included), for the verification summary;
	// nil counts zero.
	RunUsage func() board.Usage
	// Attachments bounds the files the agent attaches (attach.go); zero
	// means the defaults.
	Attachments board.AttachmentLimits
}

// Effects records what the tools changed during a run.
type Effects struct {
	// Comments are the comments the agent posted.
	Comments []board.Comment
	// Asked reports whether the agent asked a question (the ticket is
	// blocked).
	Asked bool
	// MovedTo is the state the agent moved the ticket to, empty if none.
	MovedTo board.State
	// Planned reports whether the agent saved a plan.
	Planned bool
	// Split are the sub-tickets the agent created with ticket_split.
	Split []board.Ref
}

// Session holds the ticket tools of one run and what they did.
type Session struct {
	cfg Config

	mu  sync.Mutex
	eff Effects
}

// New returns the ticket tools of one run.
func New(cfg Config) *Session {
	if cfg.VerifyTimeout == 0 {
		cfg.VerifyTimeout = DefaultVerifyTimeout
	}
	if cfg.Author == "" {
		cfg.Author = "bonsai"
	}
	return &Session{cfg: cfg}
}

// Tools returns ticket_comment, ticket_ask, ticket_plan and ticket_move,
// and ticket_split in a research task.
func (s *Session) Tools() []tool.Tool {
	ts := []tool.Tool{s.commentTool(), s.askTool(), s.planTool(), s.moveTool()}
	if s.cfg.Task == board.TaskResearch {
		ts = append(ts, s.splitTool())
	}
	return ts
}

// Effects returns what the tools did so far.
func (s *Session) Effects() Effects {
	s.mu.Lock()
	defer s.mu.Unlock()
	e := s.eff
	e.Comments = append([]board.Comment(nil), s.eff.Comments...)
	return e
}

func (s *Session) record(f func(e *Effects)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	f(&s.eff)
}

// comment posts c as the agent and records it.
func (s *Session) comment(ctx context.Context, kind board.CommentKind, content string) (board.Comment, error) {
	c, err := s.cfg.Board.AddComment(ctx, s.cfg.Ref, board.Comment{
		AuthorType: board.Agent, AuthorName: s.cfg.Author, Kind: kind, Content: content,
	})
	if err != nil {
		return c, err
	}
	s.record(func(e *Effects) {
		e.Comments = append(e.Comments, c)
		if kind == board.KindQuestion {
			e.Asked = true
		}
	})
	return c, nil
}
