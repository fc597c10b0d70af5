package insights

import "time"

// The groupings a report's Groups follow.
const (
	ByModel   = "model"
	ByEngine  = "engine"
	ByProject = "project"
	ByWeek    = "week"
)

// Groupings lists the groupings, in the order help texts name them.
var Groupings = []string{ByModel, ByEngine, ByProject, ByWeek}

// Report is every figure of a board's insights. Its JSON is the shape of
// `bonsai stats --json`.
type Report struct {
	// Project is the project the figures are of; empty for every project.
	Project string `json:"project,omitempty"`
	// Since is where the figures start; zero for the whole history.
	Since time.Time `json:"since,omitzero"`
	// By is the grouping of Groups and of the days' split.
	By string `json:"by"`
	// Notes say what the figures cannot tell from the stored facts.
	Notes []string `json:"notes"`
	// Total is every landed ticket's figures; its Key is "all".
	Total Figures `json:"total"`
	// Groups are the figures per group, by Key.
	Groups []Figures `json:"groups"`
	// Days are the spend per UTC day, oldest first; days without runs
	// are left out.
	Days []Day `json:"days"`
	// Endings are the failed and stopped runs, most first.
	Endings []Ending `json:"endings"`
	// Costliest are the landed tickets that cost most, costliest first.
	Costliest []Ticket `json:"costliest"`
}

// Figures are what a group of landed tickets took.
type Figures struct {
	Key string `json:"key"`
	// Landed counts the tickets; OneShot those never sent back.
	Landed      int     `json:"landed"`
	OneShot     int     `json:"oneShot"`
	OneShotRate float64 `json:"oneShotRate"`
	// Returns, Runs, Turns, Tokens, CostUSD and Questions are totals over
	// the landed tickets (all their runs, also those before Since).
	Returns   int     `json:"returns"`
	Runs      int     `json:"runs"`
	Turns     int     `json:"turns"`
	Tokens    int64   `json:"tokens"`
	CostUSD   float64 `json:"costUsd"`
	Questions int     `json:"questions"`
	// PerLanded are the totals divided by Landed; zero when none landed.
	PerLanded PerTicket `json:"perLanded"`
	// TimeToLand is from a ticket's first run to its landing, over the
	// landed tickets that had a run (Timed of them).
	Timed       int     `json:"timed"`
	MedianHours float64 `json:"medianHoursToLand"`
	MeanHours   float64 `json:"meanHoursToLand"`
}

// PerTicket are figures per landed ticket.
type PerTicket struct {
	Returns   float64 `json:"returns"`
	Runs      float64 `json:"runs"`
	Turns     float64 `json:"turns"`
	Tokens    float64 `json:"tokens"`
	CostUSD   float64 `json:"costUsd"`
	Questions float64 `json:"questions"`
}

// Day is what the runs started on one UTC day spent.
type Day struct {
	// Day is the date, 2006-01-02.
	Day     string  `json:"day"`
	Runs    int     `json:"runs"`
	Tokens  int64   `json:"tokens"`
	CostUSD float64 `json:"costUsd"`
	// ByKey splits CostUSD by the report's grouping.
	ByKey map[string]float64 `json:"byKey"`
	// BudgetUSD sums the daily budgets of the projects that have one; 0
	// when none has.
	BudgetUSD float64 `json:"budgetUsd"`
	// Over names the projects that spent more than their daily budget.
	Over []string `json:"over,omitempty"`
}

// Ending counts runs that failed or were stopped alike.
type Ending struct {
	Project string    `json:"project"`
	Status  string    `json:"status"`
	Reason  string    `json:"reason"`
	Runs    int       `json:"runs"`
	Last    time.Time `json:"last"`
}

// Ticket is one landed ticket among the costliest.
type Ticket struct {
	Ref         string    `json:"ref"`
	Title       string    `json:"title"`
	Key         string    `json:"key"`
	CostUSD     float64   `json:"costUsd"`
	Runs        int       `json:"runs"`
	Returns     int       `json:"returns"`
	LandedAt    time.Time `json:"landedAt"`
	HoursToLand float64   `json:"hoursToLand"`
}
