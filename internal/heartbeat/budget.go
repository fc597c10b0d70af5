package heartbeat

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/store"
)

// Limits caps what agents spend; a zero field means no cap. Options.Limits
// holds config.json's budget.* keys and a project's own settings override
// each field (Of). Tokens count input, output and cached tokens alike, as
// the agent loop does.
type Limits struct {
	RunTokens    int64
	RunUSD       float64
	TicketTokens int64
	TicketUSD    float64
	// DailyTokens and DailyUSD cap a project's runs started since
	// midnight, local time.
	DailyTokens int64
	DailyUSD    float64
}

// Of returns l with the caps a project sets (non-zero) in place of the
// configured ones.
func (l Limits) Of(a board.AgentSettings) Limits {
	pick := func(dst *int64, v int64) {
		if v > 0 {
			*dst = v
		}
	}
	pickUSD := func(dst *float64, v float64) {
		if v > 0 {
			*dst = v
		}
	}
	pick(&l.RunTokens, a.RunTokens)
	pickUSD(&l.RunUSD, a.RunBudgetUSD)
	pick(&l.TicketTokens, a.TicketTokens)
	pickUSD(&l.TicketUSD, a.BudgetUSD)
	pick(&l.DailyTokens, a.DailyTokens)
	pickUSD(&l.DailyUSD, a.DailyBudgetUSD)
	return l
}

// epsilon absorbs rounding when comparing sums of dollars.
const epsilon = 1e-9

// StartOfDay returns the midnight, in now's location, that begins the day
// of a project's daily budget.
func StartOfDay(now time.Time) time.Time {
	y, m, d := now.Date()
	return time.Date(y, m, d, 0, 0, 0, 0, now.Location())
}

// spent is what a ticket and its project have consumed so far.
type spent struct {
	ticket store.Spend
	day    store.Spend
}

// spendStore reads what runs spent: a ticket's runs, and a project's
// since a time.
type spendStore interface {
	Runs(ctx context.Context, ref board.Ref) ([]board.Run, error)
	Spend(ctx context.Context, projectSlug string, since time.Time) (store.Spend, error)
}

// spending reads what the ticket's runs and the project's runs of the day
// of now consumed. The daily sum is read only when a daily cap applies.
func spending(ctx context.Context, st spendStore, now time.Time, l Limits, p board.Project, ref board.Ref) (spent, error) {
	var s spent
	if l.TicketTokens > 0 || l.TicketUSD > 0 {
		runs, err := st.Runs(ctx, ref)
		if err != nil {
			return s, err
		}
		for _, r := range runs {
			s.ticket.Runs++
			s.ticket.Usage = s.ticket.Add(r.Usage)
		}
	}
	if l.DailyTokens > 0 || l.DailyUSD > 0 {
		d, err := st.Spend(ctx, p.Slug, StartOfDay(now))
		if err != nil {
			return s, err
		}
		s.day = d
	}
	return s, nil
}

// dailyBlocker says why a project's daily budget (caps l) lets no run
// start at now, or "".
func dailyBlocker(ctx context.Context, st spendStore, now time.Time, l Limits, p board.Project) (string, error) {
	if l.DailyTokens <= 0 && l.DailyUSD <= 0 {
		return "", nil
	}
	s, err := spending(ctx, st, now, Limits{DailyTokens: l.DailyTokens, DailyUSD: l.DailyUSD}, p, board.Ref{})
	if err != nil {
		return "", fmt.Errorf("read the spend of %s today: %w", p.Slug, err)
	}
	if over := crossedCaps(l, board.Usage{}, s, false); len(over) > 0 {
		return fmt.Sprintf("project %s: %s; it resets at midnight", p.Slug, over[0].text()), nil
	}
	return "", nil
}

// budgetOf returns the budget of a run that has not spent anything yet
// and, when a ticket or daily cap is already reached, the caps reached.
func budgetOf(l Limits, s spent) (Budget, []capHit) {
	if over := crossedCaps(l, board.Usage{}, s, false); len(over) > 0 {
		return Budget{}, over
	}
	b := Budget{USD: l.RunUSD, Tokens: l.RunTokens}
	least := func(dst *float64, v float64) {
		if *dst <= 0 || v < *dst {
			*dst = v
		}
	}
	leastTokens := func(dst *int64, v int64) {
		if *dst <= 0 || v < *dst {
			*dst = v
		}
	}
	if l.TicketUSD > 0 {
		least(&b.USD, l.TicketUSD-s.ticket.CostUSD)
	}
	if l.DailyUSD > 0 {
		least(&b.USD, l.DailyUSD-s.day.CostUSD)
	}
	if l.TicketTokens > 0 {
		leastTokens(&b.Tokens, l.TicketTokens-s.ticket.Tokens())
	}
	if l.DailyTokens > 0 {
		leastTokens(&b.Tokens, l.DailyTokens-s.day.Tokens())
	}
	return b, nil
}

// capHit is one cap that was reached.
type capHit struct {
	scope  string // "run", "ticket", "day"
	tokens bool
	used   float64
	limit  float64
}

func (c capHit) amount(v float64) string {
	if c.tokens {
		return fmt.Sprintf("%d tokens", int64(v))
	}
	return usd(v)
}

func (c capHit) text() string {
	what := map[string]string{"run": "this run's", "ticket": "this ticket's", "day": "the project's daily"}[c.scope]
	return fmt.Sprintf("%s budget is used up (%s spent of %s)", what, c.amount(c.used), c.amount(c.limit))
}

// raise says how to raise the cap for project slug.
func (c capHit) raise(slug string) string {
	flag := map[string][2]string{
		"run": {"--run-budget <USD>", "--run-tokens <N>"}, "ticket": {"--budget <USD>", "--ticket-tokens <N>"},
		"day": {"--daily-budget <USD>", "--daily-tokens <N>"},
	}[c.scope]
	key := map[string][2]string{
		"run": {"budget.runUSD", "budget.runTokens"}, "ticket": {"budget.ticketUSD", "budget.ticketTokens"},
		"day": {"budget.projectDailyUSD", "budget.projectDailyTokens"},
	}[c.scope]
	i := 0
	if c.tokens {
		i = 1
	}
	value := strings.Fields(flag[i])[1]
	return fmt.Sprintf("`bonsai project edit %s %s` for this project, or `bonsai config set %s %s` for every project",
		slug, flag[i], key[i], value)
}

// crossedCaps lists the caps reached: by the run's usage (when run is
// true) and by the ticket's and the project's spend of today.
func crossedCaps(l Limits, u board.Usage, s spent, run bool) []capHit {
	var out []capHit
	check := func(scope string, tokens int64, tokenCap int64, cost, usdCap float64) {
		if tokenCap > 0 && tokens >= tokenCap {
			out = append(out, capHit{scope: scope, tokens: true, used: float64(tokens), limit: float64(tokenCap)})
		}
		if usdCap > 0 && cost+epsilon >= usdCap {
			out = append(out, capHit{scope: scope, used: cost, limit: usdCap})
		}
	}
	if run {
		check("run", u.Tokens(), l.RunTokens, u.CostUSD, l.RunUSD)
	}
	check("ticket", s.ticket.Tokens(), l.TicketTokens, s.ticket.CostUSD, l.TicketUSD)
	check("day", s.day.Tokens(), l.DailyTokens, s.day.CostUSD, l.DailyUSD)
	return out
}
