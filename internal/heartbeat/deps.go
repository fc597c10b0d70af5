package heartbeat

import (
	"context"
	"time"

	"github.com/bonsai-run/bonsai/internal/agentjob"
	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/heartbeat/scheduletool"
	"github.com/bonsai-run/bonsai/internal/heartbeat/tickettool"
	"github.com/bonsai-run/bonsai/internal/store"
	"github.com/bonsai-run/bonsai/internal/workspace"
)

// Picker finds the work of a beat with plain SQL.
type Picker interface {
	// RunningRuns lists the runs still running: at the start of a beat,
	// those a dead beat left.
	RunningRuns(ctx context.Context) ([]board.Run, error)
	// Pick returns the ticket the pick policy chooses per active project
	// (or only the named one).
	Pick(ctx context.Context, projectSlug string) ([]board.Pick, error)
	// NextPicks returns up to n tickets of a project by the pick policy,
	// leaving out the leased and running ones (many.go).
	NextPicks(ctx context.Context, projectSlug string, n int) ([]board.Pick, error)
}

// Board reads and writes what one run needs.
type Board interface {
	tickettool.Board
	Approvals
	Projects(ctx context.Context, f store.ProjectFilter) ([]board.Project, error)
	Project(ctx context.Context, slug string) (board.Project, error)
	Comments(ctx context.Context, ref board.Ref) ([]board.Comment, error)
	ResolveComments(ctx context.Context, ref board.Ref, commentIDs []string) error
	StartRun(ctx context.Context, r board.Run) (board.Run, error)
	// Spend sums a project's runs started since a time (its daily budget).
	Spend(ctx context.Context, projectSlug string, since time.Time) (store.Spend, error)
	FinishRun(ctx context.Context, r board.Run) (board.Run, error)
	Reviews
	// Runs lists a ticket's runs, newest first (the no-progress streak).
	Runs(ctx context.Context, ref board.Ref) ([]board.Run, error)
	Controls
}

// Store is everything the heartbeat asks of the board's store.
type Store interface {
	Picker
	Board
	Scheduler
	// scheduletool.Board: the schedule tools of projects with ScheduleTools.
	scheduletool.Board
}

// Workspaces is the WorkspaceProvider (docs/design.md §4).
type Workspaces interface {
	// Prepare clones, fetches and returns the ticket's worktree.
	Prepare(ctx context.Context, p board.Project, t board.Ticket) (*workspace.Workspace, error)
	// Push publishes the ticket's branch, reporting whether it pushed.
	Push(ctx context.Context, p board.Project, ws *workspace.Workspace) (bool, error)
	// Head returns the commit a branch of the project's clone points at,
	// "" when there is no such branch; compared before and after a run,
	// it tells whether the agent committed.
	Head(ctx context.Context, p board.Project, branch string) (string, error)
	// Review reads a ticket branch from the project's clone and the
	// default branch from the project's repository into the runtime's own
	// repository and returns the commits a person reviews.
	Review(ctx context.Context, p board.Project, number int, branch string) (workspace.Review, error)
	// ForgetReview deletes what the runtime's repository keeps of a
	// done or deleted ticket's review.
	ForgetReview(ctx context.Context, slug string, number int, branch string) error
	// Worktrees lists the ticket numbers with a worktree in a project.
	Worktrees(slug string) ([]int, error)
	// Remove deletes a ticket's worktree, keeping its branch.
	Remove(ctx context.Context, slug string, n int) error
	// Checkout fetches the project and returns a checkout of its default
	// branch with the project's agent executor (its sandbox): where a
	// schedule's pre-check runs. The caller closes it.
	Checkout(ctx context.Context, p board.Project) (*workspace.Workspace, error)
}

// The runner contract is agentjob's, shared with the runners, which do
// not import the heartbeat; these names keep it where the heartbeat's
// callers look for it.
type (
	// AgentRunner does the work on one ticket (agentjob.AgentRunner).
	AgentRunner = agentjob.AgentRunner
	// Charger tells what a run spent from its transcript (agentjob.Charger).
	Charger = agentjob.Charger
	// Readiness tells whether a model is usable (agentjob.Readiness).
	Readiness = agentjob.Readiness
	// ProjectReadiness tells whether a project's runs can start
	// (agentjob.ProjectReadiness).
	ProjectReadiness = agentjob.ProjectReadiness
	// Brief says what a run is for (agentjob.Brief).
	Brief = agentjob.Brief
	// Job is one run of an agent on one ticket (agentjob.Job).
	Job = agentjob.Job
	// ApprovalAnswer is how a held command is handled now
	// (agentjob.ApprovalAnswer).
	ApprovalAnswer = agentjob.ApprovalAnswer
	// Outcome is how a run ended (agentjob.Outcome).
	Outcome = agentjob.Outcome
	// Budget caps one run (agentjob.Budget).
	Budget = agentjob.Budget
	// Steering carries people's comments to a running agent
	// (agentjob.Steering).
	Steering = agentjob.Steering
)
