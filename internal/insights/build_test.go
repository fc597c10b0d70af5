package insights

import (
	"reflect"
	"testing"
	"time"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/store"
)

// at is a time on 2026-03-dd (a Monday is the 2nd and the 9th), UTC.
func at(dd, hh int) time.Time { return time.Date(2026, time.March, dd, hh, 0, 0, 0, time.UTC) }

// smallBoard is the hand-computed board of the tests: two projects,
// demo (a model, the built-in engine, a $1.50 daily budget) and other
// (the default model, codex, no budget).
func smallBoard() (store.StatsFacts, []board.Project) {
	projects := []board.Project{
		{Slug: "demo", Agent: board.AgentSettings{Model: "anthropic/claude-x", DailyBudgetUSD: 1.5}},
		{Slug: "other", Agent: board.AgentSettings{Engine: board.EngineCodex}},
	}
	facts := store.StatsFacts{
		Landed: []store.LandedTicket{
			{ProjectSlug: "demo", Number: 2, Title: "two", LandedAt: at(2, 14), FirstRunAt: at(2, 10), Runs: 2,
				Usage:   board.Usage{InputTokens: 300, OutputTokens: 30, CacheReadTokens: 1000, CacheWriteTokens: 50, CostUSD: 0.75},
				Returns: 1, Questions: 1},
			{ProjectSlug: "demo", Number: 3, Title: "three", LandedAt: at(3, 12), FirstRunAt: at(3, 11), Runs: 1,
				Usage: board.Usage{InputTokens: 300, OutputTokens: 30, CostUSD: 1.25}},
			{ProjectSlug: "other", Number: 1, Title: "one", LandedAt: at(9, 10), FirstRunAt: at(8, 10), Runs: 1,
				Usage: board.Usage{InputTokens: 9, CostUSD: 9}, Questions: 2},
			{ProjectSlug: "other", Number: 2, Title: "by hand", LandedAt: at(9, 11)}, // no run: not timed
		},
		Days: []store.DaySpend{
			{ProjectSlug: "demo", Day: at(2, 0), Runs: 3, Usage: board.Usage{InputTokens: 100, CostUSD: 2}},
			{ProjectSlug: "demo", Day: at(3, 0), Runs: 1, Usage: board.Usage{CostUSD: 0.5}},
			{ProjectSlug: "other", Day: at(2, 0), Runs: 2, Usage: board.Usage{OutputTokens: 7, CostUSD: 1}},
		},
		Endings: []store.RunEnding{
			{ProjectSlug: "demo", Status: board.RunError, Error: "boom\n\tat the stack", Runs: 2, Last: at(3, 9)},
			{ProjectSlug: "other", Status: board.RunStopped, Runs: 3, Last: at(2, 9)},
		},
	}
	return facts, projects
}

func same[T any](t *testing.T, what string, got, want T) {
	t.Helper()
	if !reflect.DeepEqual(got, want) {
		t.Errorf("%s:\n got  %+v\n want %+v", what, got, want)
	}
}

func TestBuildByModel(t *testing.T) {
	t.Parallel()
	facts, projects := smallBoard()
	r, err := Build(facts, projects, Options{Costliest: 2})
	if err != nil {
		t.Fatal(err)
	}
	same(t, "grouping", r.By, ByModel)
	// 4 landed, 3 never returned; 1 return, 4 runs, 1380+330+9 tokens,
	// $11, 3 questions; timed: 4 h, 1 h, 24 h (the ticket landed by hand
	// had no run).
	same(t, "total", r.Total, Figures{Key: "all", Landed: 4, OneShot: 3, OneShotRate: 0.75, Returns: 1, Runs: 4,
		Tokens: 1719, CostUSD: 11, Questions: 3,
		PerLanded: PerTicket{Returns: 0.25, Runs: 1, Tokens: 429.75, CostUSD: 2.75, Questions: 0.75},
		Timed:     3, MedianHours: 4, MeanHours: 29.0 / 3})
	same(t, "groups by model", r.Groups, []Figures{
		{Key: "anthropic/claude-x", Landed: 2, OneShot: 1, OneShotRate: 0.5, Returns: 1, Runs: 3, Tokens: 1710, CostUSD: 2,
			Questions: 1, PerLanded: PerTicket{Returns: 0.5, Runs: 1.5, Tokens: 855, CostUSD: 1, Questions: 0.5},
			Timed: 2, MedianHours: 2.5, MeanHours: 2.5},
		{Key: "default", Landed: 2, OneShot: 2, OneShotRate: 1, Runs: 1, Tokens: 9, CostUSD: 9, Questions: 2,
			PerLanded: PerTicket{Runs: 0.5, Tokens: 4.5, CostUSD: 4.5, Questions: 1}, Timed: 1, MedianHours: 24, MeanHours: 24},
	})
	same(t, "days", r.Days, []Day{
		{Day: "2026-03-02", Runs: 5, Tokens: 107, CostUSD: 3, ByKey: map[string]float64{"anthropic/claude-x": 2, "default": 1},
			BudgetUSD: 1.5, Over: []string{"demo"}},
		{Day: "2026-03-03", Runs: 1, CostUSD: 0.5, ByKey: map[string]float64{"anthropic/claude-x": 0.5}, BudgetUSD: 1.5},
	})
	same(t, "endings", r.Endings, []Ending{
		{Project: "other", Status: "stopped", Reason: "(no error recorded)", Runs: 3, Last: at(2, 9)},
		{Project: "demo", Status: "error", Reason: "boom", Runs: 2, Last: at(3, 9)},
	})
	same(t, "costliest", r.Costliest, []Ticket{
		{Ref: "other#1", Title: "one", Key: "default", CostUSD: 9, Runs: 1, LandedAt: at(9, 10), HoursToLand: 24},
		{Ref: "demo#3", Title: "three", Key: "anthropic/claude-x", CostUSD: 1.25, Runs: 1, LandedAt: at(3, 12), HoursToLand: 1},
	})
	if len(r.Notes) == 0 {
		t.Error("the report does not say what the facts cannot tell")
	}
}

func TestBuildOtherGroupings(t *testing.T) {
	t.Parallel()
	facts, projects := smallBoard()
	keys := func(by string) []string {
		r, err := Build(facts, projects, Options{By: by})
		if err != nil {
			t.Fatal(err)
		}
		ks := []string{}
		for _, g := range r.Groups {
			ks = append(ks, g.Key+":"+string(rune('0'+g.Landed)))
		}
		return ks
	}
	same(t, "by engine", keys(ByEngine), []string{"bonsai:2", "codex:2"})
	same(t, "by project", keys(ByProject), []string{"demo:2", "other:2"})
	// Weeks start on Monday: the 2nd and the 3rd are one week, the 9th the next.
	same(t, "by week", keys(ByWeek), []string{"2026-03-02:2", "2026-03-09:2"})

	_, err := Build(facts, projects, Options{By: "colour"})
	if board.ErrorCode(err) != board.EINVALID {
		t.Errorf("an unknown grouping gave %v, want EINVALID", err)
	}
}

func TestWeekOf(t *testing.T) {
	t.Parallel()
	for in, want := range map[time.Time]string{
		at(2, 0): "2026-03-02", at(8, 23): "2026-03-02", at(9, 0): "2026-03-09", at(1, 12): "2026-02-23",
	} {
		if got := WeekOf(in); got != want {
			t.Errorf("WeekOf(%v) = %s, want %s", in, got, want)
		}
	}
}

func TestBuildEmpty(t *testing.T) {
	t.Parallel()
	r, err := Build(store.StatsFacts{}, nil, Options{})
	if err != nil {
		t.Fatal(err)
	}
	same(t, "empty total", r.Total, Figures{Key: "all"})
	if r.Groups == nil || r.Days == nil || r.Endings == nil || r.Costliest == nil {
		t.Errorf("empty lists are nil (JSON null): %+v", r)
	}
}

// TestBuildByRecordedModel: what a run recorded wins over its project's
// setting of today; runs that recorded nothing fall back to the setting.
func TestBuildByRecordedModel(t *testing.T) {
	t.Parallel()
	facts, projects := smallBoard()
	facts.Landed[0].Model, facts.Landed[0].Engine, facts.Landed[0].Turns = "openai/gpt-5", "codex", 7
	facts.Days = append(facts.Days, store.DaySpend{ProjectSlug: "demo", Model: "openai/gpt-5", Engine: "codex",
		Day: at(2, 0), Runs: 1, Usage: board.Usage{CostUSD: 0.25}})
	r, err := Build(facts, projects, Options{})
	if err != nil {
		t.Fatal(err)
	}
	keys := map[string]Figures{}
	for _, g := range r.Groups {
		keys[g.Key] = g
	}
	if g := keys["openai/gpt-5"]; g.Landed != 1 || g.Turns != 7 || g.PerLanded.Turns != 7 {
		t.Errorf("the recorded model's group = %+v, want demo#2 alone with its 7 turns", g)
	}
	if g := keys["anthropic/claude-x"]; g.Landed != 1 {
		t.Errorf("the setting's group = %+v, want demo#3 alone", g)
	}
	if got := r.Days[0].ByKey; got["openai/gpt-5"] != 0.25 || got["anthropic/claude-x"] != 2 {
		t.Errorf("day 2's spend by model = %v, want the recorded run apart", got)
	}
	r, err = Build(facts, projects, Options{By: ByEngine})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Groups) != 2 || r.Groups[0].Key != "bonsai" || r.Groups[1].Key != "codex" || r.Groups[1].Landed != 3 {
		t.Errorf("by engine = %+v, want bonsai (demo#3) and codex (demo#2 recorded, other's two)", r.Groups)
	}
}
