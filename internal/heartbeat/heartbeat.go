package heartbeat

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/policy"
)

// MaxRun is the longest one agent run may take, whatever the beat's
// remaining time (docs/design.md §8).
const MaxRun = 15 * time.Minute

// Options configures a Heartbeat. Store, Workspaces, Runner, LockFile and
// Sessions are required.
type Options struct {
	Store      Store
	Workspaces Workspaces
	Runner     AgentRunner
	Logger     *slog.Logger
	// LockFile is heartbeat.lock.
	LockFile string
	// StateFile keeps the last beat and the paused providers between beats;
	// empty disables it.
	StateFile string
	// Sessions is the root of the agent transcripts, laid out by
	// session.Layout.
	Sessions string
	// Skills is the user's skills directory, offered to every ticket
	// agent beside the repository's .bonsai/skills; empty means none.
	Skills string
	// DefaultModel is used for projects that name no model.
	DefaultModel string
	// MaxConcurrent caps agents running at once; 0 means one.
	MaxConcurrent int
	// MaxDuration caps the whole beat; 0 means 30 minutes.
	MaxDuration time.Duration
	// MaxRun caps one run; 0 or more than MaxRun means MaxRun.
	MaxRun time.Duration
	// Project limits the beat to one project slug; empty means all.
	Project string
	// Ticket, when set, makes the beat run exactly that ticket (`bonsai
	// heartbeat --ticket`, Run now) if the board rules let an agent work
	// on it, else the beat fails with a *NotRunnableError saying why.
	Ticket board.Ref
	// ControlPoll is how often the running runs' stop requests and new
	// comments are read (all of them in one query); 0 means
	// DefaultControlPoll.
	ControlPoll time.Duration
	// ControlWake, when not nil, returns a channel that receives when the
	// store changed (Postgres's LISTEN/NOTIFY), closed when ctx ends: the
	// runs' control is read then too, not only every ControlPoll.
	ControlWake func(ctx context.Context) <-chan struct{}
	// Attachments bound the files agents attach (config.json's
	// attachments.*); zero means board.DefaultAttachmentLimits.
	Attachments board.AttachmentLimits
	// Limits are the spending caps of config.json; a project's own
	// settings override each.
	Limits Limits
	// WorkerID is recorded on runs, e.g. "host:pid".
	WorkerID string
	// Leases, when not nil, makes every run hold its ticket's lease
	// (lease.go): for a board several machines share. nil on one
	// machine, where the lock file does.
	Leases Leaser
	// LeaseTTL is how long a lease lasts unrenewed; 0 means
	// DefaultLeaseTTL.
	LeaseTTL time.Duration
	// GlobalLimit caps the leases held across the board, so the agents
	// running at once on all the machines sharing it; a run that would
	// exceed it is skipped until a later beat. 0 means no cap beyond
	// each machine's MaxConcurrent. It needs Leases.
	GlobalLimit int
	// SharedBoard says several machines share the board (Postgres): a
	// project whose repository is a local path is skipped with the
	// reason (board.SharedRepoReason), as the other machines cannot
	// clone it, and each beat records its worker in Registry.
	SharedBoard bool
	// Transcripts, when not nil, is the store's copy of the tickets'
	// transcripts. On a shared board it is the transcript: each run's
	// file is rebuilt from it first and every line the run writes goes
	// to it first (transcript.go). On one machine it only fills in a
	// ticket's missing file (a board copied back from a shared store).
	Transcripts Transcripts
	// Registry, on a SharedBoard only, records Worker at every beat that
	// takes the lock (registry.go); nil records nothing.
	Registry Registry
	// Worker is what a beat records of its process: host, data
	// directory, pid, version, kind and start time; an empty ID is
	// WorkerID.
	Worker board.WorkerBeat
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// Reap kills the processes whose environment holds mark (a
	// RunMark=ID pair) and returns how many it killed; a beat reaps what
	// a dead beat's runs left. nil reaps nothing.
	Reap func(mark string) (int, error)
	// Redact removes the process's secrets from a run's error and the
	// agent's last words before they are stored, posted or logged: they
	// may quote a provider's answer. nil keeps them as they are.
	Redact func(string) string
	// Sandbox reports whether project p's commands can run as its
	// sandbox setting asks: nil when they can (the sandbox starts, or the
	// project's sandbox is off), else why not and how to fix it (an error
	// wrapping executor.ErrSandboxUnavailable). The project's picks are
	// then skipped, no run started, with one comment per streak. nil
	// checks nothing.
	Sandbox func(p board.Project) error
	// Policy holds what every run's command policy shares: config.json's
	// Allow and Ask patterns (appended to each project's own), the data
	// directory and the home directory. A project's permission mode sets
	// the mode.
	Policy policy.Config
	// ResolveProgram, when not nil, gives the policy's program lookup
	// (policy.Config.Resolve) for a project whose sandbox is set as
	// given: an always-grant records the program it finds for a bare name
	// and lets the command run only while it finds the same file
	// (docs/policy.md, "Approvals"). nil keeps Policy.Resolve.
	ResolveProgram func(board.SandboxMode) func(name string) string
	// PullRequests, when not nil, opens the pull requests of pr-mode
	// projects' tickets that reach VERIFICATION and follows the open ones
	// at the start of every beat (docs/forges.md).
	PullRequests PullRequests
	// Trackers, when not nil, syncs the projects' issue trackers at the
	// start of every beat and posts what the runs said after them
	// (docs/trackers.md).
	Trackers Trackers
	// Progress, when not nil, receives where each run stands: when it
	// starts, after each model response and when it ends. Runs of
	// different projects call it from their own goroutines at once.
	Progress func(Progress)
	// Idle, when not nil, is asked at the end of a beat of the whole
	// board that found nothing to do for the stamp of the board and
	// settings its caller took before the beat read them; the beat
	// records it for Unchanged (idle.go). "" records nothing: the
	// caller cannot vouch for the board (notifications wait, or a file
	// changed too recently to tell a later change from it).
	Idle func() string
}

// Heartbeat runs beats. Each concern of a beat is a small type of its
// own, made here from the options: the leases (lease.go), reconciling a
// dead beat's runs (reconcile.go) and firing schedules (schedule.go);
// each run's concerns are made by newRun (work.go).
type Heartbeat struct {
	opts Options
	log  *slog.Logger

	reaper     reaper
	leases     *leaseKeeper // nil on one machine's board
	reconciler reconciler
	firer      firer
	// control reads the control of the runs at work (watcher.go).
	control *controlWatcher
}

// New returns a Heartbeat after checking the required options.
func New(opts Options) (*Heartbeat, error) {
	if opts.Store == nil || opts.Workspaces == nil || opts.Runner == nil || opts.LockFile == "" || opts.Sessions == "" {
		return nil, errors.New("heartbeat: Store, Workspaces, Runner, LockFile and Sessions are required")
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Redact == nil {
		opts.Redact = func(s string) string { return s }
	}
	if opts.LeaseTTL <= 0 {
		opts.LeaseTTL = DefaultLeaseTTL
	}
	if opts.MaxConcurrent < 1 {
		opts.MaxConcurrent = 1
	}
	opts.Workspaces = newSerialWorkspaces(opts.Workspaces)
	if opts.MaxDuration <= 0 {
		opts.MaxDuration = 30 * time.Minute
	}
	if opts.MaxRun <= 0 || opts.MaxRun > MaxRun {
		opts.MaxRun = MaxRun
	}
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	h := &Heartbeat{opts: opts, log: log, reaper: reaper{reap: opts.Reap, log: log},
		control: &controlWatcher{store: opts.Store, poll: opts.ControlPoll, wake: opts.ControlWake, log: log}}
	if opts.Leases != nil {
		h.leases = &leaseKeeper{leases: opts.Leases, store: opts.Store, worker: opts.WorkerID, ttl: opts.LeaseTTL,
			limit: opts.GlobalLimit, reaper: h.reaper, log: log}
	}
	h.reconciler = reconciler{store: opts.Store, leases: h.leases, reaper: h.reaper, runner: opts.Runner,
		sessions: opts.Sessions, worker: opts.WorkerID, log: log}
	h.firer = firer{store: opts.Store, workspaces: opts.Workspaces, sandbox: opts.Sandbox, redact: opts.Redact,
		now: opts.Now, project: opts.Project, log: log}
	return h, nil
}

// Report says what a beat did.
type Report struct {
	// Skipped reports that another beat held the lock; HolderPID is its pid.
	Skipped bool `json:"skipped"`
	// Unchanged reports a beat that read nothing: nothing had written to
	// the board since a beat that found nothing to do (Unchanged).
	Unchanged bool `json:"unchanged,omitempty"`
	HolderPID int  `json:"holderPid,omitempty"`
	// Interrupted counts runs of a dead beat marked interrupted.
	Interrupted int `json:"interrupted"`
	// Removed counts worktrees of DONE tickets removed.
	Removed int `json:"removed"`
	// Reviews says what following the open pull requests did; nil when
	// the beat did not.
	Reviews *ReviewSync `json:"reviews,omitempty"`
	// Trackers says what syncing the issue trackers did; nil when the
	// beat did not.
	Trackers *TrackerSync `json:"trackers,omitempty"`
	// Fired has one entry per schedule the beat fired (docs/schedules.md).
	Fired []FireReport `json:"fired,omitempty"`
	// Runs has one entry per picked ticket, by project slug.
	Runs       []RunReport `json:"runs"`
	StartedAt  time.Time   `json:"startedAt"`
	FinishedAt time.Time   `json:"finishedAt"`
}

// Duration is how long the beat took.
func (r Report) Duration() time.Duration { return r.FinishedAt.Sub(r.StartedAt) }

// RunReport is what happened to one picked ticket.
type RunReport struct {
	Ticket string          `json:"ticket"` // e.g. "demo#3"
	Class  string          `json:"class"`
	Task   board.TaskKind  `json:"task"`
	RunID  string          `json:"runId,omitempty"`
	Status board.RunStatus `json:"status,omitempty"`
	// Skipped says why no agent ran (model not configured, provider
	// paused, repository backing off, sandbox unavailable, daily budget
	// spent, no time left in the beat).
	Skipped string `json:"skipped,omitempty"`
	// Leased reports a skip because another worker holds the lease the
	// run needed (its project's, or the last of the global limit): the
	// ticket waits for a machine, not for a person.
	Leased bool   `json:"leased,omitempty"`
	Error  string `json:"error,omitempty"`
	// MovedTo is the state the agent moved the ticket to, if any.
	MovedTo  board.State   `json:"movedTo,omitempty"`
	Pushed   bool          `json:"pushed,omitempty"`
	Duration time.Duration `json:"durationNs"`

	// PushError says why the branch could not be pushed; the work stayed
	// in the local clone.
	PushError string `json:"pushError,omitempty"`
	// PullRequestError says why the ticket's pull request could not be
	// opened or updated.
	PullRequestError string `json:"pullRequestError,omitempty"`
	// Guard says why the run's ticket was blocked after it: two runs in a
	// row made no progress, or failed with the same error.
	Guard string `json:"guard,omitempty"`
}

// Beat runs one heartbeat: lock, reconcile, pick, run, record, unlock. A
// beat that finds the lock held returns a Report with Skipped set and no
// error. Failures of one run are recorded on its ticket and do not fail
// the beat; the error is for the runtime's own failures.
func (h *Heartbeat) Beat(ctx context.Context) (Report, error) {
	rep := Report{StartedAt: h.opts.Now(), Runs: []RunReport{}}
	lock, err := TryLock(h.opts.LockFile)
	if err != nil {
		var held *HeldError
		if errors.As(err, &held) {
			h.log.Info(held.Error())
			rep.Skipped, rep.HolderPID, rep.FinishedAt = true, held.PID, h.opts.Now()
			return rep, nil
		}
		return rep, err
	}
	defer lock.Unlock()
	// Deadlines are on the real clock: they bound real processes, and a
	// context's deadline is read against time.Now. opts.Now is the
	// board's clock, which tests and schedules may set elsewhere: a
	// deadline taken from it ended a beat at once when it was behind.
	deadline := time.Now().Add(h.opts.MaxDuration)
	ctx, cancel := context.WithDeadline(ctx, deadline)
	defer cancel()

	// idle stays true while the beat finds nothing to do (idle.go).
	idle, busy, err := h.tidy(ctx, &rep)
	if err != nil {
		return rep, err
	}
	st := ReadState(h.opts.StateFile)
	plans, err := h.plan(ctx, st)
	if err != nil {
		return rep, err
	}
	idle = idle && rep.Removed == 0 && len(rep.Fired) == 0 && len(plans) == 0
	for i := range plans {
		if busy[plans[i].Ticket.ID] && plans[i].Blocker == "" {
			plans[i].Blocker = "a process of its previous run still runs in its worktree"
		}
	}
	noteSandbox(ctx, h.opts.Store, plans, st, h.opts.Now(), h.log)
	bestOfN{h}.failVariants(ctx, plans)
	rep.Runs = h.runAll(ctx, plans, deadline, &ledger{st: st, now: h.opts.Now})
	bestOfN{h}.settleVariants(ctx, rep.Runs)
	if h.opts.Trackers != nil && len(rep.Runs) > 0 {
		h.opts.Trackers.PostTrackers(ctx, h.opts.Project)
	}
	rep.FinishedAt = h.opts.Now()
	st.LastBeat = &rep
	st.Idle = nil
	if idle {
		if stamp := h.opts.Idle(); stamp != "" {
			if until, err := idleUntil(ctx, h.opts.Store, rep.StartedAt); err == nil {
				st.Idle = &Idle{Stamp: stamp, Until: until}
			}
		}
	}
	if err := saveState(h.opts.StateFile, st, h.opts.Now()); err != nil {
		h.log.Error("save heartbeat state", "err", err)
	}
	h.log.Info("beat finished", "picked", len(plans), "duration", rep.Duration().String())
	return rep, nil
}

// tidy does what a beat does before it picks: it records the worker,
// expires leases, reconciles a dead beat's runs, follows the pull
// requests, removes done worktrees and fires due schedules, writing what
// it did into rep. It reports whether the beat is idle so far (nothing to
// do), and the tickets busy with a run that still lives.
func (h *Heartbeat) tidy(ctx context.Context, rep *Report) (idle bool, busy map[string]bool, err error) {
	if h.opts.SharedBoard && h.opts.Registry != nil {
		b := h.opts.Worker
		if b.ID == "" {
			b.ID = h.opts.WorkerID
		}
		recordBeat(ctx, h.opts.Registry, b, h.log)
	}
	if h.leases != nil {
		h.leases.expire(ctx)
	}
	idle = h.opts.Idle != nil && h.opts.Project == "" && h.opts.Ticket == (board.Ref{}) && !h.opts.SharedBoard
	if rep.Interrupted, busy, err = h.reconciler.reconcile(ctx); err != nil {
		return false, nil, err
	}
	if rep.Interrupted > 0 {
		h.log.Warn("marked runs of a dead beat interrupted", "count", rep.Interrupted)
	}
	rep.Reviews = syncReviews(ctx, h.opts.PullRequests, h.opts.Project, h.opts.Ticket != (board.Ref{}), h.log)
	idle = idle && rep.Interrupted == 0 && len(busy) == 0 && (rep.Reviews == nil || rep.Reviews.Open == 0 && rep.Reviews.Errors == 0)
	// A synced tracker is never idle: what comes in is not on the board.
	rep.Trackers = syncTrackers(ctx, h.opts.Trackers, h.opts.Project, h.opts.Ticket != (board.Ref{}), h.log)
	idle = idle && (rep.Trackers == nil || rep.Trackers.Trackers == 0)
	if rep.Removed, err = removeDone(ctx, h.opts.Store, h.opts.Workspaces, h.opts.Project, h.log); err != nil {
		h.log.Error("remove worktrees of done tickets", "err", err)
		idle = false
	}
	if h.opts.Ticket.Number == 0 {
		var ferr error
		if rep.Fired, ferr = h.firer.fireDue(ctx); ferr != nil {
			idle = false
		}
	}
	return idle, busy, nil
}

// FireDue fires the schedules due now, before the pick, so their tickets
// are picked by the normal policy in this same beat. A schedule whose
// windows were missed (the machine was off) fires once: its next time is
// computed from now. No model is asked.
func (h *Heartbeat) FireDue(ctx context.Context) []FireReport {
	reps, _ := h.firer.fireDue(ctx)
	return reps
}

// Fire fires schedule s as read from the store (its NextFire is the
// firing's due time): the overlap rule, the pre-check, then the ticket, in
// one store transaction that moves NextFire on from now. `bonsai schedule
// fire` calls it for a schedule that is not due yet.
func (h *Heartbeat) Fire(ctx context.Context, s board.Schedule) FireReport {
	return h.firer.fire(ctx, s)
}

// runAll runs the planned tickets, at most MaxConcurrent at once, starting
// them in dispatchOrder, and returns their reports in plan order.
func (h *Heartbeat) runAll(ctx context.Context, plans []Plan, deadline time.Time, l *ledger) []RunReport {
	reps := make([]RunReport, len(plans))
	sem := make(chan struct{}, h.opts.MaxConcurrent)
	var wg sync.WaitGroup
	for _, i := range dispatchOrder(plans) {
		p := plans[i]
		reps[i] = p.report()
		if p.Blocker != "" {
			reps[i].Skipped = p.Blocker
			h.log.Warn("skip ticket", "ticket", reps[i].Ticket, "reason", p.Blocker)
			continue
		}
		select {
		case sem <- struct{}{}:
		case <-ctx.Done():
			reps[i].Skipped = "no time left in this beat"
			continue
		}
		if b := startBlocker(ctx, h.opts.Store, h.opts.Now(), h.opts.Limits, &l.days, p); b != "" {
			<-sem
			reps[i].Skipped = b
			h.log.Warn("skip ticket", "ticket", reps[i].Ticket, "reason", b)
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			reps[i] = h.work(ctx, p, deadline, l)
		}()
	}
	wg.Wait()
	return reps
}

// providerOf returns the provider part of a "provider/model" id.
func providerOf(model string) string {
	p, _, _ := strings.Cut(model, "/")
	return p
}

// errText keeps an error short enough for a run record.
func errText(err error) string {
	s := err.Error()
	if len(s) > 2000 {
		s = s[:2000] + "…"
	}
	return s
}
