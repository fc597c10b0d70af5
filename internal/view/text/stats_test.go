package text

import (
	"strings"
	"testing"
	"time"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/insights"
	"github.com/bonsai-run/bonsai/internal/store"
)

func TestWriteStats(t *testing.T) {
	t.Parallel()
	day := time.Date(2026, time.March, 2, 0, 0, 0, 0, time.UTC)
	facts := store.StatsFacts{
		Landed: []store.LandedTicket{
			{ProjectSlug: "demo", Number: 1, Title: "Fix the \x1b[31mlogin", LandedAt: day.Add(14 * time.Hour), FirstRunAt: day.Add(10 * time.Hour),
				Runs: 3, Usage: board.Usage{InputTokens: 900, CostUSD: 1.5}, Returns: 1, Questions: 2},
			{ProjectSlug: "demo", Number: 2, Title: "Tidy", LandedAt: day.Add(15 * time.Hour), FirstRunAt: day.Add(14 * time.Hour),
				Runs: 1, Usage: board.Usage{InputTokens: 100, CostUSD: 0.5}},
		},
		Days:    []store.DaySpend{{ProjectSlug: "demo", Day: day, Runs: 4, Usage: board.Usage{InputTokens: 1000, CostUSD: 2}}},
		Endings: []store.RunEnding{{ProjectSlug: "demo", Status: board.RunError, Error: "boom", Runs: 2, Last: day}},
	}
	projects := []board.Project{{Slug: "demo", Agent: board.AgentSettings{Model: "openai/gpt-5", DailyBudgetUSD: 1.5}}}
	r, err := insights.Build(facts, projects, insights.Options{Project: "demo", Since: day})
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	if err := WriteStats(&b, r, day.Add(48*time.Hour)); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{
		"Insights of project demo, since 2026-03-02, by model\n",
		// 2 landed, 1 one-shot; per ticket 0.5 returns, 2 runs, 500 tokens, $1, 1 question; median of 4 h and 1 h
		"openai/gpt-5  2       50%       0.5      2.0   500     $1.00  1.0        2.5 h\n",
		"2026-03-02  4     1000    $2.00  $1.50         demo\n",
		"demo     error   2     2 days ago  boom\n",
		"demo#1  $1.50  3     1        4.0 h    Fix the \\x1b[31mlogin\n",
		"model and engine are what each ticket's newest run ran with",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}
