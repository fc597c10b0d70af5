package agentjob

import (
	"context"
	"time"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/policy"
	"github.com/bonsai-run/bonsai/internal/session"
	"github.com/bonsai-run/bonsai/internal/tool"
	"github.com/bonsai-run/bonsai/internal/workspace"
)

// AgentRunner does the work on one ticket (docs/design.md §4). The first
// implementation (heartbeat/agentrunner) runs Bonsai's agent loop in process;
// engine runs external agent CLIs.
type AgentRunner interface {
	RunAgent(ctx context.Context, job Job) (Outcome, error)
}

// Charger is implemented by runners that can tell what a run spent from
// the transcript it wrote, so that a run whose beat died is charged what
// it used. Only the runner knows its engine's transcript.
type Charger interface {
	// Spent returns the usage the transcript at sessionFile recorded
	// since a time.
	Spent(sessionFile string, since time.Time) (board.Usage, error)
}

// Readiness is implemented by runners that can tell, without a model
// request, whether a model is usable (a key or a server is configured). A
// beat runs no agent, and touches no ticket, for a model that is not ready.
type Readiness interface {
	// Ready returns nil when model can be used, else an error naming the
	// missing variable or setting.
	Ready(model string) error
}

// ProjectReadiness is implemented by runners whose readiness depends on
// the project, such as one that runs the project's engine CLI: a beat
// runs no agent, and touches no ticket, when ReadyFor returns an error
// (the skip reason, with its fix). It is asked instead of Readiness.
type ProjectReadiness interface {
	ReadyFor(p board.Project, model string) error
}

// Brief says what a run is for. The runner puts it in words for its own
// engine and tool set (a system prompt, a task message), reading the
// project's instructions and persona from the worktree itself.
type Brief struct {
	// Task is what this run is for: research, implement, reply or
	// feedback.
	Task    board.TaskKind
	Project board.Project
	Ticket  board.Ticket
	// Comments is the ticket's thread, oldest first.
	Comments []board.Comment
	// Unseen are the IDs of the comments of Comments the agent has not
	// seen: people's comments not yet resolved.
	Unseen []string
	// Decisions are people's decisions on the ticket's approvals that the
	// agent was not told yet, oldest first: the runner tells it that an
	// allowed command now runs and why a denied one does not. They count
	// as told once the run got to work.
	Decisions []board.Approval
	// Budget caps what the run may spend.
	Budget Budget
	// Deadline is when the run must stop; the runner ends with status
	// timeout, keeping the transcript so that the next beat resumes.
	Deadline time.Time
	// Now is when the run starts, in the runtime's clock.
	Now time.Time
	// Attachments are the ticket's files with their bytes, oldest first
	// (TaskMessage).
	Attachments []Attached
}

// Job is one run of an agent on one ticket: the brief, and where and with
// what the runner works.
type Job struct {
	Brief
	Workspace *workspace.Workspace
	// Model is the "provider/model" to run.
	Model string
	// SessionFile is the ticket's transcript, resumed across beats.
	SessionFile string
	// Mirror, when not nil, is where the runner's session of SessionFile
	// writes every line first (session.Options.Mirror): the store of a
	// shared board. A line it refuses ends the run with an error.
	Mirror session.Mirror
	// LiveStore, when not nil, is where the runner's live writer keeps the
	// live file too (session.LiveWriter.SetStore): on a board several
	// machines share, a `bonsai serve` on another one shows the message
	// being streamed from it.
	LiveStore session.LiveStore
	// Skills is the user's skills directory, offered beside the
	// repository's .bonsai/skills; the runner serves read calls under
	// ~/.bonsai/skills/ from it. Empty means none.
	Skills string
	// Tools are the ticket tools, in addition to the coding tools. A result
	// with Terminate set ends the run after the current turn.
	Tools []tool.Tool
	// OnUsage, when not nil, receives the run's cumulative usage after
	// each model response, so the ticket tools can report it.
	OnUsage func(board.Usage)
	// Policy is the command policy for this run: the project's mode and
	// patterns with config.json's policy.* patterns appended, DataDir and
	// HomeDir set. The runner sets Workspace (the worktree root).
	Policy policy.Config
	// ReadOnly is set when the run promises no writes to the worktree:
	// in a read-only project, and researching a ticket in RESEARCH of a
	// project where a person approves each plan (plan mode). Every
	// command of the run runs with the worktree and its git metadata
	// mounted read-only (executor.RunOptions.ReadOnly), and write and
	// edit are refused; the policy still judges in the project's mode.
	ReadOnly bool
	// Approve is asked about a command the policy judged Ask. nil means no
	// person can be asked: the command is refused.
	Approve func(ctx context.Context, command string, d policy.Decision) ApprovalAnswer
	// Steering, when not nil, carries people's comments posted while the
	// run works: the runner attaches a function that steers its agent
	// with them (quoted as data) before its next model request.
	Steering *Steering
}

// ApprovalAnswer is how a command the policy holds for a person is handled
// now.
type ApprovalAnswer struct {
	// Allow is set when a person allowed this command (once, or always for
	// the project): run it.
	Allow bool
	// Message, when not allowed, is the tool result the model sees: why,
	// what the person said, what to do.
	Message string
	// EndRun is set when the request was posted and the ticket blocked: the
	// run ends after this turn (tool.Result.Terminate).
	EndRun bool
}

// Outcome is how a run ended.
type Outcome struct {
	// Status is completed, timeout, error or budget_exceeded; the heartbeat
	// turns it into blocked when the agent asked a question, and into
	// stopped when a person stopped the run.
	Status board.RunStatus
	Usage  board.Usage
	// Summary is the agent's last words (its final text), used for the
	// status comment the runtime writes when the agent wrote none.
	Summary string
	// Error describes a failed run.
	Error string
	// RetryAt, when set, is when the provider may be asked again after a
	// rate-limit, quota or rejected-key error; the heartbeat pauses the
	// provider's work until then.
	RetryAt time.Time
}

// Budget caps one run; zero means no cap. It is the least of the run's
// own cap and what is left of the ticket's and the project's daily caps.
type Budget struct {
	USD    float64
	Tokens int64
}
