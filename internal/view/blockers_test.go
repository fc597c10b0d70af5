package view

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/bonsai-run/bonsai/internal/board"
)

func TestBlockers_NoneWhenAllIsWell(t *testing.T) {
	got := Blockers([]ModelStatus{{Model: "anthropic/x", Projects: []string{"demo"}}},
		[]ProjectSummary{{Slug: "demo", Active: true}}, AgentFacts{})
	if got == nil || len(got) != 0 {
		t.Fatalf("want an empty list, got %#v", got)
	}
}

func TestBlockers_EachCause(t *testing.T) {
	until := time.Date(2030, 1, 2, 15, 4, 0, 0, time.Local)
	models := []ModelStatus{
		{Model: "anthropic/x", Projects: []string{"a"}, Problem: "no API key: set ANTHROPIC_API_KEY or run 'bonsai credentials set anthropic'"},
		{Model: "openai/y", Projects: []string{"b", "c"}},
	}
	projects := []ProjectSummary{{Slug: "a", Active: true}, {Slug: "b", Active: true}, {Slug: "c", Active: true, SandboxProblem: "bwrap is not installed"},
		{Slug: "old", Active: false, SandboxProblem: "bwrap is not installed"}}
	facts := AgentFacts{
		Paused: []PausedProvider{{Provider: "openai", Until: until}},
		Repos:  []RepoWait{{Project: "b", Until: until, Error: "fatal: repository not found"}, {Project: "old", Until: until, Error: "gone"}},
		Skips: []Skip{{Ticket: "c#4", Reason: "project c: daily USD budget is used up ($5.00 spent of $5.00); it resets at midnight"},
			{Ticket: "b#1", Reason: "provider openai is paused"}},
	}
	got := Blockers(models, projects, facts)
	var kinds []string
	for _, b := range got {
		kinds = append(kinds, b.Kind+":"+strings.Join(b.Projects, ","))
		if b.Reason == "" || b.Fix == "" {
			t.Errorf("%s: want a reason and a fix, got %#v", b.Kind, b)
		}
	}
	want := []string{"model:a", "paused:b,c", "sandbox:c", "repo:b", "budget:c"}
	if !slices.Equal(kinds, want) {
		t.Fatalf("blockers = %v, want %v", kinds, want)
	}
	if !strings.Contains(got[0].Reason, "ANTHROPIC_API_KEY") || !strings.Contains(got[0].Fix, "bonsai credentials set anthropic") {
		t.Errorf("model blocker: %#v", got[0])
	}
	if !strings.Contains(got[1].Reason, "15:04 Jan 2") {
		t.Errorf("paused blocker says not until when: %q", got[1].Reason)
	}
}

func TestNotRun(t *testing.T) {
	bs := []Blocker{{Kind: BlockerModel, Reason: "Model a/b cannot run: no key.", Fix: "Set it.", Projects: []string{"demo"}},
		{Kind: BlockerRepo, Reason: "Repo of web failed.", Fix: "Check it.", Projects: []string{"web"}}}
	f := AgentFacts{Skips: []Skip{{Ticket: "demo#3", Reason: "provider a is paused"}}}
	if got := NotRun("demo#3", f, bs); !slices.Equal(got, []string{"the last beat did not run it: provider a is paused"}) {
		t.Errorf("a skipped ticket: %q", got)
	}
	if got := NotRun("demo#4", f, bs); !slices.Equal(got, []string{"Model a/b cannot run: no key. Set it."}) {
		t.Errorf("a ticket of a blocked project: %q", got)
	}
	if got := NotRun("other#1", f, bs); len(got) != 0 {
		t.Errorf("nothing stops it: %q", got)
	}
}

// Issue 27, item 6: pull requests the last beat could not follow are in
// the banner, one line per distinct failure naming its tickets; they do
// not say a ticket's agent cannot run.
func TestBlockers_UnfollowedPullRequests(t *testing.T) {
	projects := []ProjectSummary{{Slug: "demo", Active: true}, {Slug: "web", Active: true}, {Slug: "old"}}
	scope := "gitea: read reviews of pull request #1: 403 Forbidden (token does not have at least one of required scope(s), required=[read:issue])"
	facts := AgentFacts{Unfollowed: []Skip{{Ticket: "demo#1", Reason: scope}, {Ticket: "web#2", Reason: scope},
		{Ticket: "demo#3", Reason: "gitea: read pull request #3: 502 Bad Gateway"}, {Ticket: "old#1", Reason: scope}}}
	got := Blockers(nil, projects, facts)
	if len(got) != 2 || got[0].Kind != BlockerForge || !slices.Equal(got[0].Projects, []string{"demo", "web"}) ||
		!strings.Contains(got[0].Reason, "pull requests of demo#1, web#2: ") || !strings.Contains(got[0].Reason, "read:issue") ||
		!strings.Contains(got[0].Fix, "bonsai doctor") || !strings.Contains(got[1].Reason, "demo#3: gitea: read pull request #3: 502") {
		t.Fatalf("blockers %#v", got)
	}
	if nr := NotRun("demo#4", facts, got); len(nr) != 0 {
		t.Fatalf("an unfollowed pull request stops agents: %q", nr)
	}
}

// TestBlockers_FailedTrackers: one blocker per active project whose
// tracker's last sync failed; a sync that recovered, or an archived
// project's, says nothing; a failing tracker does not stop agents.
func TestBlockers_FailedTrackers(t *testing.T) {
	projects := []ProjectSummary{{Slug: "demo", Active: true}, {Slug: "web", Active: true}, {Slug: "old"}}
	facts := AgentFacts{Trackers: []board.TrackerSync{
		{ProjectSlug: "demo", Tracker: board.TrackerLinear, Error: "linear: 401 authentication failed", Failures: 2},
		{ProjectSlug: "web", Tracker: board.TrackerGitHub},
		{ProjectSlug: "old", Tracker: board.TrackerJira, Error: "jira: 503", Failures: 9},
	}}
	got := Blockers(nil, projects, facts)
	if len(got) != 1 || got[0].Kind != BlockerTracker || !slices.Equal(got[0].Projects, []string{"demo"}) ||
		got[0].Reason != "The linear tracker of demo failed to sync 2 times in a row: linear: 401 authentication failed" ||
		got[0].StopsAgents() {
		t.Fatalf("blockers %#v", got)
	}
	if nr := NotRun("demo#4", facts, got); len(nr) != 0 {
		t.Fatalf("a failing tracker stops agents: %q", nr)
	}
}
