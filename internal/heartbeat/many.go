package heartbeat

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/bonsai-run/bonsai/internal/board"
)

// Many agents per project (docs/heartbeat.md, "Many agents per project"):
// a project whose max-agents setting is above 1 has up to that many of
// its tickets worked in one beat, each in its own worktree, in the pick
// policy's order, within heartbeat.maxConcurrentAgents. On a shared board
// the leases hold the limit across machines (store.Leases).

// projectPicks returns the picks of project proj a beat works, pk being
// the pick policy's choice there: pk alone for a project whose agents
// work one ticket at a time (Pick's answer is all it needs) and for a
// beat told its ticket (told); else up to the project's max-agents
// tickets of NextPicks, which leaves out the leased and running ones.
// When it leaves out all of them, pk stays, to be skipped with the
// reason as before.
func projectPicks(ctx context.Context, st Picker, told bool, proj board.Project, pk board.Pick) ([]board.Pick, error) {
	n := proj.Agent.Agents()
	if n <= 1 || told {
		return []board.Pick{pk}, nil
	}
	pks, err := st.NextPicks(ctx, proj.Slug, n)
	if err != nil || len(pks) == 0 {
		return []board.Pick{pk}, err
	}
	return pks, nil
}

// dispatchOrder returns the indices of plans in the order runAll starts
// them: every project's first ticket, then every project's second, and
// so on, so that one project's many tickets do not keep the others
// waiting for heartbeat.maxConcurrentAgents.
func dispatchOrder(plans []Plan) []int {
	order := make([]int, len(plans))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return plans[a].Rank - plans[b].Rank })
	return order
}

// startBlocker says why the run of plan p may not start at now, or "":
// the project's daily budget (its caps of limits), read again before each
// start after the first of the project, since the project's runs that
// ended meanwhile are charged to it, and held whole by the project's
// running runs (days).
func startBlocker(ctx context.Context, st spendStore, now time.Time, limits Limits, days *dayShares, p Plan) string {
	l := limits.Of(p.Project.Agent)
	if p.Rank == 0 || l.DailyUSD <= 0 && l.DailyTokens <= 0 {
		return ""
	}
	s, err := spending(ctx, st, now, Limits{DailyTokens: l.DailyTokens, DailyUSD: l.DailyUSD}, p.Project, board.Ref{})
	if err != nil {
		return "could not read the project's spend of today: " + errText(err)
	}
	if over := crossedCaps(l, board.Usage{}, s, false); len(over) > 0 {
		return fmt.Sprintf("project %s: %s; it resets at midnight", p.Project.Slug, over[0].text())
	}
	if days.full(p.Project.ID, l, s.day) {
		return dayHeldText
	}
	return ""
}
