package view

import (
	"context"
	"slices"
	"time"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/store"
)

// RecentRunsShown is how many finished or running runs status lists.
const RecentRunsShown = 10

// BlockedShown is how many of the tickets waiting on people status lists;
// BlockedTotal counts them all.
const BlockedShown = 20

// Status is `bonsai status --json`.
type Status struct {
	// Heartbeat is the heartbeat's state: {"lastBeat": …, "paused": […]}.
	Heartbeat any              `json:"heartbeat"`
	Projects  []ProjectSummary `json:"projects"`
	// Queue is what the next heartbeat would pick, one ticket per project.
	Queue []QueueEntry `json:"queue"`
	// Running are the runs not finished yet.
	Running []Run `json:"running"`
	// Blocked are the first BlockedShown tickets whose agent waits on a
	// person's answer, by project and number; BlockedTotal counts them all.
	Blocked      []Ticket `json:"blocked"`
	BlockedTotal int      `json:"blockedTotal"`
	// Waiting are the first BlockedShown tickets agents would work on
	// that wait for a blocker or a sub-ticket not DONE yet.
	Waiting    []WaitingTicket `json:"waiting"`
	SpendToday Spend           `json:"spendToday"`
	// Models says, for each model the active projects use, whether agents
	// can reach it: a missing key or setting is named before a beat fails.
	Models     []ModelStatus `json:"models"`
	RecentRuns []Run         `json:"recentRuns"`
	// Warnings are the unsafe settings of the active projects, such as a
	// sandbox that is off (SafetyWarnings).
	Warnings []Warning `json:"warnings"`
	// Blockers are why agents cannot run, as every web page's banner
	// shows them (Blockers).
	Blockers []Blocker `json:"blockers"`
	// Workers and Leases are the machines' workers and the tickets they
	// hold, on a board several machines share (Postgres); absent on one
	// machine's board.
	Workers []Worker      `json:"workers,omitempty"`
	Leases  []board.Lease `json:"leases,omitempty"`
}

// ModelStatus is one model the board's agents use.
type ModelStatus struct {
	Model    string   `json:"model"`    // provider/model
	Projects []string `json:"projects"` // active projects using it
	// Problem is why agents cannot use the model (e.g. which variable to
	// set); empty when it is ready.
	Problem string `json:"problem,omitempty"`
	// KeySource says where the model's key comes from when it is ready:
	// "environment" (the provider's variable) or "stored" (`bonsai
	// credentials set`); empty for a provider that needs none.
	KeySource string `json:"keySource,omitempty"`
	// Unpriced reports that the model catalog (with config.json's models
	// settings) has no price for it: budgets in USD do not count its runs.
	Unpriced bool `json:"unpriced,omitempty"`
}

// Spend is what runs consumed.
type Spend struct {
	Runs    int     `json:"runs"`
	Tokens  int64   `json:"tokens"`
	CostUSD float64 `json:"costUsd"`
}

// StatusSource is what LoadStatus reads: a subset of store.Store.
type StatusSource interface {
	Overview(ctx context.Context, f store.ProjectFilter) ([]store.ProjectOverview, error)
	Tickets(ctx context.Context, f store.TicketFilter) ([]board.Ticket, error)
	CountTickets(ctx context.Context, f store.TicketFilter) (int, error)
	RecentRuns(ctx context.Context, limit int) ([]board.Run, error)
	RunningRuns(ctx context.Context) ([]board.Run, error)
	Spend(ctx context.Context, projectSlug string, since time.Time) (store.Spend, error)
	WaitingTickets(ctx context.Context, limit int) ([]board.Ticket, error)
	LinksReader
}

// StatusOptions is what LoadStatus needs besides the store.
type StatusOptions struct {
	// Heartbeat is the heartbeat's state, shown as it is.
	Heartbeat any
	// Now is the time; spend today counts from its local midnight.
	Now time.Time
	// Models checks the models of the given projects; nil leaves the
	// section empty. The projects carry only their slug, name, active flag,
	// model, permission mode and sandbox setting (see store.ProjectOverview).
	Models func(projects []board.Project) []ModelStatus
	// Sandbox reports whether the sandbox can start on this machine (nil)
	// or why not, with the fix; it fills the SandboxProblem of the active
	// projects that require the sandbox. nil leaves SandboxProblem empty.
	Sandbox func() error
	// Facts is what the heartbeat's saved state says stops agents, for
	// Status.Blockers; nil counts only the models and the sandbox.
	Facts func() AgentFacts
	// Shared, on a board several machines share, fills Status.Workers and
	// Status.Leases; nil (one machine's board) leaves them out.
	Shared WorkerSource
	// LeaseTTL is the lease time (0: board.DefaultLeaseTTL) and Interval
	// the heartbeat's, with which Shared's workers are told (Workers,
	// QuietAfter).
	LeaseTTL, Interval time.Duration
}

// LoadStatus gathers what `bonsai status` and the web status page show.
// Spend today counts from local midnight of now. Every query reads an
// index, so the cost does not grow with the number of finished tickets.
func LoadStatus(ctx context.Context, src StatusSource, o StatusOptions) (Status, error) {
	now := o.Now
	v := Status{Heartbeat: o.Heartbeat, Projects: []ProjectSummary{}, Queue: []QueueEntry{},
		Running: []Run{}, Blocked: []Ticket{}, Waiting: []WaitingTicket{}, RecentRuns: []Run{}, Models: []ModelStatus{}, Warnings: []Warning{}, Blockers: []Blocker{}}
	ovs, err := src.Overview(ctx, store.ProjectFilter{})
	if err != nil {
		return v, err
	}
	ps := make([]board.Project, 0, len(ovs))
	var picks []board.Pick
	var sandboxErr error
	sandboxChecked := false
	for _, ov := range ovs {
		p := ov.Project
		ps = append(ps, p)
		sum := ProjectSummary{Slug: p.Slug, Name: p.Name, Active: p.Active, Counts: NewStateCounts(ov.Counts), Sandbox: p.Agent.Sandbox.String()}
		if p.Active && p.Agent.Sandbox == board.SandboxRequired && o.Sandbox != nil {
			if !sandboxChecked {
				sandboxErr, sandboxChecked = o.Sandbox(), true
			}
			if sandboxErr != nil {
				sum.SandboxProblem = SandboxReason(sandboxErr)
			}
		}
		v.Projects = append(v.Projects, sum)
		if ov.Pick != nil {
			picks = append(picks, *ov.Pick)
		}
	}
	if o.Models != nil {
		v.Models = o.Models(ps)
	}
	v.Warnings = SafetyWarnings(ps)
	var facts AgentFacts
	if o.Facts != nil {
		facts = o.Facts()
	}
	v.Blockers = Blockers(v.Models, v.Projects, facts)
	board.SortQueue(picks)
	for _, p := range picks {
		v.Queue = append(v.Queue, NewQueueEntry(p))
	}
	blocked, err := src.Tickets(ctx, store.TicketFilter{Blocked: true, Limit: BlockedShown})
	if err != nil {
		return v, err
	}
	for _, t := range blocked {
		v.Blocked = append(v.Blocked, NewTicket(t))
	}
	v.BlockedTotal = len(blocked)
	if len(blocked) == BlockedShown {
		if v.BlockedTotal, err = src.CountTickets(ctx, store.TicketFilter{Blocked: true}); err != nil {
			return v, err
		}
	}
	if v.Waiting, err = loadWaiting(ctx, src); err != nil {
		return v, err
	}
	running, err := src.RunningRuns(ctx)
	if err != nil {
		return v, err
	}
	for _, r := range running {
		v.Running = append(v.Running, NewRun(r))
	}
	recent, err := src.RecentRuns(ctx, RecentRunsShown)
	if err != nil {
		return v, err
	}
	for _, r := range recent {
		v.RecentRuns = append(v.RecentRuns, NewRun(r))
	}
	y, m, d := now.Date()
	spent, err := src.Spend(ctx, "", time.Date(y, m, d, 0, 0, 0, 0, now.Location()))
	if err != nil {
		return v, err
	}
	v.SpendToday = Spend{Runs: spent.Runs, Tokens: spent.Tokens(), CostUSD: spent.CostUSD}
	if o.Shared == nil {
		return v, nil
	}
	if v.Leases, err = o.Shared.Leases(ctx); err != nil {
		return v, err
	}
	registry, err := o.Shared.Workers(ctx)
	if err != nil {
		return v, err
	}
	ttl := o.LeaseTTL
	if ttl <= 0 {
		ttl = board.DefaultLeaseTTL
	}
	v.Workers = Workers(registry, v.Leases, append(slices.Clone(v.Running), v.RecentRuns...),
		WorkersOptions{TTL: ttl, Now: now, Quiet: QuietAfter(o.Interval)})
	return v, nil
}

// WorkerSource is what LoadStatus reads of a board several machines
// share: its leases and its workers registry (store.Leases, store.Workers).
type WorkerSource interface {
	Leases(ctx context.Context) ([]board.Lease, error)
	Workers(ctx context.Context) ([]board.WorkerBeat, error)
}
