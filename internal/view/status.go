package view

import (
	"context"
	"time"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/store"
)

// RecentRunsShown is how many finished or running runs status lists.
const RecentRunsShown = 10

// BlockedShown is how many of the tickets waiting on people status lists;
// BlockedTotal counts them all.
const BlockedShown = 20

// runningScan is how many of the newest runs status looks through for the
// ones still running: more than agents can run at once.
const runningScan = 64

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
	SpendToday   Spend    `json:"spendToday"`
	// Models says, for each model the active projects use, whether agents
	// can reach it: a missing key or setting is named before a beat fails.
	Models     []ModelStatus `json:"models"`
	RecentRuns []Run         `json:"recentRuns"`
}

// ModelStatus is one model the board's agents use.
type ModelStatus struct {
	Model    string   `json:"model"`    // provider/model
	Projects []string `json:"projects"` // active projects using it
	// Problem is why agents cannot use the model (e.g. which variable to
	// set); empty when it is ready.
	Problem string `json:"problem,omitempty"`
}

// Spend is what runs consumed.
type Spend struct {
	Runs    int     `json:"runs"`
	Tokens  int64   `json:"tokens"`
	CostUSD float64 `json:"costUsd"`
}

// StatusSource is what LoadStatus reads: a subset of store.Store.
type StatusSource interface {
	Projects(ctx context.Context, f store.ProjectFilter) ([]board.Project, error)
	TicketCounts(ctx context.Context) (map[string]map[board.State]int, error)
	Tickets(ctx context.Context, f store.TicketFilter) ([]board.Ticket, error)
	CountTickets(ctx context.Context, f store.TicketFilter) (int, error)
	Pick(ctx context.Context, projectSlug string) ([]board.Pick, error)
	RecentRuns(ctx context.Context, limit int) ([]board.Run, error)
	Spend(ctx context.Context, projectSlug string, since time.Time) (store.Spend, error)
}

// briefPicker is a StatusSource that can read the queue with only the
// fields a queue entry shows (the SQLite store can, at 60% of Pick's cost):
// its picks' tickets carry their project slug, number, title, state,
// sub-state and priority alone.
type briefPicker interface {
	PickBrief(ctx context.Context, projectSlug string) ([]board.Pick, error)
}

// briefProjects is a StatusSource that can list projects with only the
// fields status uses: their slug, name, active flag and model.
type briefProjects interface {
	ProjectsBrief(ctx context.Context, f store.ProjectFilter) ([]board.Project, error)
}

// StatusOptions is what LoadStatus needs besides the store.
type StatusOptions struct {
	// Heartbeat is the heartbeat's state, shown as it is.
	Heartbeat any
	// Now is the time; spend today counts from its local midnight.
	Now time.Time
	// Models checks the models of the given projects; nil leaves the
	// section empty. The projects may carry only their slug, name, active
	// flag and model (see briefProjects).
	Models func(projects []board.Project) []ModelStatus
}

// LoadStatus gathers what `bonsai status` and the web status page show.
// Spend today counts from local midnight of now. Every query reads an
// index, so the cost does not grow with the number of finished tickets.
func LoadStatus(ctx context.Context, src StatusSource, o StatusOptions) (Status, error) {
	now := o.Now
	v := Status{Heartbeat: o.Heartbeat, Projects: []ProjectSummary{}, Queue: []QueueEntry{},
		Running: []Run{}, Blocked: []Ticket{}, RecentRuns: []Run{}, Models: []ModelStatus{}}
	projects := src.Projects
	if b, ok := src.(briefProjects); ok {
		projects = b.ProjectsBrief
	}
	ps, err := projects(ctx, store.ProjectFilter{})
	if err != nil {
		return v, err
	}
	counts, err := src.TicketCounts(ctx)
	if err != nil {
		return v, err
	}
	for _, p := range ps {
		v.Projects = append(v.Projects, ProjectSummary{Slug: p.Slug, Name: p.Name, Active: p.Active, Counts: NewStateCounts(counts[p.Slug])})
	}
	if o.Models != nil {
		v.Models = o.Models(ps)
	}
	pick := src.Pick
	if b, ok := src.(briefPicker); ok {
		pick = b.PickBrief
	}
	picks, err := pick(ctx, "")
	if err != nil {
		return v, err
	}
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
	runs, err := src.RecentRuns(ctx, runningScan)
	if err != nil {
		return v, err
	}
	for i, r := range runs {
		if r.Status == board.RunRunning {
			v.Running = append(v.Running, NewRun(r))
		}
		if i < RecentRunsShown {
			v.RecentRuns = append(v.RecentRuns, NewRun(r))
		}
	}
	y, m, d := now.Date()
	spent, err := src.Spend(ctx, "", time.Date(y, m, d, 0, 0, 0, 0, now.Location()))
	if err != nil {
		return v, err
	}
	v.SpendToday = Spend{Runs: spent.Runs, Tokens: spent.Tokens(), CostUSD: spent.CostUSD}
	return v, nil
}
