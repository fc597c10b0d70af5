package heartbeat

import (
	"sync"

	"github.com/bonsai-run/bonsai/internal/store"
)

// dayShares divides what is left of each project's daily budget between
// the runs of the project that a beat has going at once (many.go): the
// store charges a run's spend to the day only when the run ends, so two
// runs started together would each be given the whole rest of the day.
// Each run of a project with max-agents n is given at most its share of
// the rest beside what the project's other running runs hold: the rest
// divided by the slots not taken (n minus those runs), so the runs
// together never hold more than the day has left. A run's share returns
// when it ends, its spend then charged to the day by the store.
type dayShares struct {
	mu   sync.Mutex
	held map[string]*dayHold // by project ID
}

// dayHeldText is the error of a run that found its project's day held
// whole by the project's other running runs.
const dayHeldText = "the project's other running agents hold what is left of its daily budget; the next beat starts it once they end"

// dayHold is what a project's running runs hold of its day.
type dayHold struct {
	usd    float64
	tokens int64
	runs   int
}

// take cuts b, the budget of a run of project projectID whose agents
// work up to n tickets at once, to its share of the day (caps l, day
// the project's finished runs of the day), holds that share until
// release is called, and reports whether any was left.
func (d *dayShares) take(projectID string, n int, l Limits, day store.Spend, b Budget) (_ Budget, release func(), ok bool) {
	if l.DailyUSD <= 0 && l.DailyTokens <= 0 {
		return b, func() {}, true
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.held == nil {
		d.held = map[string]*dayHold{}
	}
	h := d.held[projectID]
	if h == nil {
		h = &dayHold{}
		d.held[projectID] = h
	}
	free := max(1, n-h.runs)
	var share dayHold
	if l.DailyUSD > 0 {
		share.usd = (l.DailyUSD - day.CostUSD - h.usd) / float64(free)
		if share.usd <= epsilon {
			return b, nil, false
		}
		if b.USD <= 0 || share.usd < b.USD {
			b.USD = share.usd
		}
	}
	if l.DailyTokens > 0 {
		share.tokens = (l.DailyTokens - day.Tokens() - h.tokens) / int64(free)
		if share.tokens <= 0 {
			return b, nil, false
		}
		if b.Tokens <= 0 || share.tokens < b.Tokens {
			b.Tokens = share.tokens
		}
	}
	h.usd, h.tokens, h.runs = h.usd+share.usd, h.tokens+share.tokens, h.runs+1
	var once sync.Once
	return b, func() {
		once.Do(func() {
			d.mu.Lock()
			defer d.mu.Unlock()
			h.usd, h.tokens, h.runs = h.usd-share.usd, h.tokens-share.tokens, h.runs-1
		})
	}, true
}

// full reports whether the project's running runs hold all its day has
// left (caps l, day its finished runs of the day).
func (d *dayShares) full(projectID string, l Limits, day store.Spend) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	h := d.held[projectID]
	if h == nil || h.runs == 0 {
		return false
	}
	return l.DailyUSD > 0 && l.DailyUSD-day.CostUSD-h.usd <= epsilon ||
		l.DailyTokens > 0 && l.DailyTokens-day.Tokens()-h.tokens <= 0
}
