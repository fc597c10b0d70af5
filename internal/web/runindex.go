package web

import (
	"encoding/json"
	"sync"
	"time"

	"github.com/bonsai-run/bonsai/internal/board"
)

// runIndex is what the board needs to know about runs, kept up to date from
// the event log instead of queried per ticket: which tickets have an agent
// running now, what each ticket's runs cost so far, and each project's spend
// per day. It also maps ticket and run IDs to ticket references, since
// events name tickets by ID.
type runIndex struct {
	mu      sync.RWMutex
	refs    map[string]board.Ref  // ticket ID → reference
	running map[string]runningRun // ticket ID → its running run
	cost    map[string]float64    // ticket ID → cost of its finished runs
	runRefs map[string]board.Ref  // run ID → ticket reference
	spend   map[string]float64    // project ID + " " + local date → cost
	lastRun time.Time             // when the newest run started
}

type runningRun struct {
	runID, projectID string
	started          time.Time
}

func newRunIndex() *runIndex {
	return &runIndex{
		refs: map[string]board.Ref{}, running: map[string]runningRun{}, cost: map[string]float64{},
		runRefs: map[string]board.Ref{}, spend: map[string]float64{},
	}
}

// eventData holds the fields of event data the index reads. The store writes
// "ref" on every ticket event and "runId"/"costUsd" on run events.
type eventData struct {
	Ref     string  `json:"ref"`
	RunID   string  `json:"runId"`
	CostUSD float64 `json:"costUsd"`
}

// apply records one event.
func (x *runIndex) apply(e board.Event) {
	if e.TicketID == "" {
		return
	}
	var d eventData
	if len(e.Data) > 0 {
		json.Unmarshal(e.Data, &d)
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	if ref, err := board.ParseRef(d.Ref); err == nil {
		x.refs[e.TicketID] = ref
	}
	switch e.Type {
	case board.EventRunStarted:
		x.running[e.TicketID] = runningRun{runID: d.RunID, projectID: e.ProjectID, started: e.CreatedAt}
		if ref, ok := x.refs[e.TicketID]; ok && d.RunID != "" {
			x.runRefs[d.RunID] = ref
		}
		if e.CreatedAt.After(x.lastRun) {
			x.lastRun = e.CreatedAt
		}
	case board.EventRunFinished:
		if r, ok := x.running[e.TicketID]; ok && (r.runID == d.RunID || d.RunID == "") {
			delete(x.running, e.TicketID)
		}
		x.cost[e.TicketID] += d.CostUSD
		x.spend[e.ProjectID+" "+e.CreatedAt.Local().Format(time.DateOnly)] += d.CostUSD
	}
}

// ticket reports whether an agent runs on the ticket now and what its
// finished runs cost.
func (x *runIndex) ticket(id string) (running bool, cost float64) {
	x.mu.RLock()
	defer x.mu.RUnlock()
	_, running = x.running[id]
	return running, x.cost[id]
}

// ref returns the reference of the ticket with the given ID.
func (x *runIndex) ref(ticketID string) (board.Ref, bool) {
	x.mu.RLock()
	defer x.mu.RUnlock()
	r, ok := x.refs[ticketID]
	return r, ok
}

// runRef returns the reference of the ticket a run worked on.
func (x *runIndex) runRef(runID string) (board.Ref, bool) {
	x.mu.RLock()
	defer x.mu.RUnlock()
	r, ok := x.runRefs[runID]
	return r, ok
}

// project returns how many agents run in the project now and what it spent
// on the local day of now.
func (x *runIndex) project(projectID string, now time.Time) (running int, spentToday float64) {
	x.mu.RLock()
	defer x.mu.RUnlock()
	for _, r := range x.running {
		if r.projectID == projectID {
			running++
		}
	}
	return running, x.spend[projectID+" "+now.Local().Format(time.DateOnly)]
}

// last returns when the newest run started; zero when none did.
func (x *runIndex) last() time.Time {
	x.mu.RLock()
	defer x.mu.RUnlock()
	return x.lastRun
}

// runningSince returns when the run working on the ticket started, if one
// is running.
func (x *runIndex) runningSince(ticketID string) (time.Time, bool) {
	x.mu.RLock()
	defer x.mu.RUnlock()
	r, ok := x.running[ticketID]
	return r.started, ok
}
