package trackersync_test

import (
	"context"
	"encoding/json"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/forge"
	"github.com/bonsai-run/bonsai/internal/forge/forgetest"
	"github.com/bonsai-run/bonsai/internal/gittest"
	"github.com/bonsai-run/bonsai/internal/heartbeat"
	"github.com/bonsai-run/bonsai/internal/tracker"
	"github.com/bonsai-run/bonsai/internal/tracker/trackertest"
)

// fakeTracker is one tracker's fake and what people do on it.
type fakeTracker struct {
	settings board.AgentSettings
	repo     string
	hosts    map[string]forge.Host
	env      map[string]string
	open     func(title, body string) string // returns the issue's reference
	answer   func(ref, body string)          // a maintainer comments
	outsider func(ref, body string)          // someone who may not steer comments
	close    func(ref string)                // closed (or deleted) by hand
	closed   board.IssueStatus               // what the link becomes then
	said     func(ref string) []string       // the bodies of the issue's comments
	requests func() int                      // requests answered so far
	// shows reports whether the issue shows the ticket state RESEARCH:
	// its label on the forges, Linear's workflow state, Jira's status.
	shows func(ref string) bool
	// state is the issue's workflow state or status (Linear, Jira).
	state func(ref string) string
}

func forgeFake(t *testing.T, k forge.Kind) fakeTracker {
	srv := forgetest.New(t, k)
	repo := srv.GitRepo(t, "acme", "widget", map[string]string{"README.md": "# widget\n"})
	srv.Outsider("mallory")
	if k == forge.Gitea {
		srv.SetScopes("write:issue", "read:repository") // what docs/trackers.md asks
	}
	env := map[string]string{}
	for _, v := range forge.TokenEnv(k) {
		env[v] = forgetest.Token
	}
	return fakeTracker{
		settings: board.AgentSettings{Tracker: board.TrackerKind(k), TrackerLabels: []string{"bonsai"}},
		repo:     repo, hosts: map[string]forge.Host{srv.Host(): {Kind: k}}, env: env,
		open: func(title, body string) string {
			return strconv.Itoa(srv.OpenIssue("acme", "widget", "acme", title, body, "bonsai"))
		},
		answer:   func(ref, body string) { srv.CommentIssue("acme", "widget", atoi(ref), "carol", body) },
		outsider: func(ref, body string) { srv.CommentIssue("acme", "widget", atoi(ref), "mallory", body) },
		close:    func(ref string) { srv.CloseIssue("acme", "widget", atoi(ref)) },
		closed:   board.IssueClosed,
		said: func(ref string) []string {
			var out []string
			for _, c := range srv.Issue("acme", "widget", atoi(ref)).Comments {
				out = append(out, c.Body)
			}
			return out
		},
		requests: func() int { return len(srv.Requests()) },
		shows: func(ref string) bool {
			return slices.Contains(srv.Issue("acme", "widget", atoi(ref)).Labels, "bonsai:research")
		},
	}
}

func linearFake(t *testing.T) fakeTracker {
	ln := trackertest.NewLinear(t)
	ln.AddUser("u-carol", "Carol")
	ln.AddUser("u-mallory", "Mallory")
	ln.AddTeam("ENG", "u-carol")
	reader, err := tracker.NewLinear(ln.URL, tracker.Options{Token: trackertest.LinearKey, Team: "ENG"})
	if err != nil {
		t.Fatal(err)
	}
	return fakeTracker{
		settings: board.AgentSettings{Tracker: board.TrackerLinear, TrackerTeam: "ENG", TrackerStates: []string{"Todo", "In Progress", "In Review"},
			TrackerSite: ln.URL},
		repo: gittest.Repo(t, t.TempDir(), map[string]string{"README.md": "# widget\n"}),
		env:  map[string]string{"LINEAR_API_KEY": trackertest.LinearKey},
		open: func(title, body string) string { return ln.OpenIssue("ENG", "Todo", "u-carol", title, body) },
		answer: func(ref, body string) {
			ln.Comment(ref, "u-carol", body)
		},
		outsider: func(ref, body string) { ln.Comment(ref, "u-mallory", body) },
		close:    func(ref string) { ln.Trash(ref) },
		closed:   board.IssueGone,
		said:     readerSaid(t, reader),
		requests: func() int { return len(ln.Requests()) },
		shows: func(ref string) bool {
			st, _ := ln.State(ref)
			return st == "In Progress"
		},
		state: func(ref string) string { st, _ := ln.State(ref); return st },
	}
}

func jiraFake(t *testing.T) fakeTracker {
	j := trackertest.NewJira(t)
	j.AddProject("PROJ")
	j.AddUser("PROJ", "acc-carol", "Carol", trackertest.Browse, trackertest.AddComment, trackertest.Edit)
	j.AddUser("PROJ", "acc-mallory", "Mallory", trackertest.Browse, trackertest.AddComment)
	reader, err := tracker.NewJira(j.URL, tracker.Options{Email: trackertest.JiraEmail, Token: trackertest.JiraToken, Team: "PROJ"})
	if err != nil {
		t.Fatal(err)
	}
	return fakeTracker{
		settings: board.AgentSettings{Tracker: board.TrackerJira, TrackerSite: j.URL, TrackerEmail: trackertest.JiraEmail, TrackerTeam: "PROJ",
			TrackerJQL: "project = PROJ AND labels = bonsai AND statusCategory != Done"},
		repo: gittest.Repo(t, t.TempDir(), map[string]string{"README.md": "# widget\n"}),
		env:  map[string]string{"JIRA_API_TOKEN": trackertest.JiraToken},
		open: func(title, body string) string {
			doc, _ := json.Marshal(tracker.MarkdownToADF(body))
			return j.OpenIssue("PROJ", "To Do", "acc-carol", title, doc, "bonsai")
		},
		answer:   func(ref, body string) { j.Comment(ref, "acc-carol", body) },
		outsider: func(ref, body string) { j.Comment(ref, "acc-mallory", body) },
		close:    func(ref string) { j.DeleteIssue(ref) },
		closed:   board.IssueGone,
		said:     readerSaid(t, reader),
		requests: func() int { return len(j.Requests()) },
		shows: func(ref string) bool {
			st, _ := j.Status(ref)
			return st == "In Progress"
		},
		state: func(ref string) string { st, _ := j.Status(ref); return st },
	}
}

// readerSaid reads an issue's comments through a client of its own.
func readerSaid(t *testing.T, tr tracker.Tracker) func(ref string) []string {
	return func(ref string) []string {
		cs, _, err := tr.Comments(context.Background(), ref, "")
		if err != nil {
			t.Fatalf("read the issue's comments: %v", err)
		}
		var out []string
		for _, c := range cs {
			out = append(out, c.Body)
		}
		return out
	}
}

func atoi(s string) int {
	n, _ := strconv.Atoi(s)
	return n
}

func fakes(t *testing.T, kind string) fakeTracker {
	switch kind {
	case "linear":
		return linearFake(t)
	case "jira":
		return jiraFake(t)
	}
	return forgeFake(t, forge.Kind(kind))
}

var kinds = []string{"github", "gitlab", "gitea", "linear", "jira"}

// TestCycle runs the whole cycle on each tracker through the heartbeat: a
// labelled issue becomes a ticket with its checklist as criteria, the
// agent asks, the question appears on the issue marked as Bonsai's, an
// outsider's comment is counted and named but not given to the agent, a
// maintainer's answer unblocks the ticket and reaches the agent's next
// run, the issue closed (or deleted) by hand stops the ticket, and a beat
// with nothing new costs one request.
func TestCycle(t *testing.T) {
	for _, kind := range kinds {
		t.Run(kind, func(t *testing.T) {
			t.Parallel()
			cycle(t, fakes(t, kind))
		})
	}
}

func cycle(t *testing.T, f fakeTracker) {
	e := newEnv(t, f.hosts, f.env)
	e.project("demo", f.repo, f.settings)
	ref := f.open("Greet the world", "Say hello.\n\n- [ ] prints hello\n- [ ] has a test")
	e.runner.steps = append(e.runner.steps, ask(t, "Which greeting: hello or hi?"),
		func(ctx context.Context, job heartbeat.Job) heartbeat.Outcome {
			var human, held []string
			for _, c := range job.Comments {
				if c.AuthorType == board.Human {
					human = append(human, c.Content)
				}
				if strings.Contains(c.Content, "use yo") {
					held = append(held, c.Content)
				}
			}
			if len(human) != 1 || !strings.Contains(human[0], "Hello, world.") || len(held) != 0 {
				t.Errorf("the agent's thread: people said %q; the outsider's words reached it %q", human, held)
			}
			return heartbeat.Outcome{Status: board.RunCompleted}
		})

	// 1. The issue becomes a ticket; the agent asks; the question is on
	// the issue.
	rep := e.beat()
	if rep.Trackers == nil || rep.Trackers.Created != 1 || len(rep.Trackers.Failures) != 0 || len(rep.Runs) != 1 {
		t.Fatalf("first beat: trackers %+v, runs %+v", rep.Trackers, rep.Runs)
	}
	tk := board.Ref{Project: "demo", Number: 1}
	got := e.get(tk)
	if got.Title != "Greet the world" || len(got.Criteria) != 2 || got.Criteria[0] != "prints hello" || !strings.Contains(got.Description, "Say hello.") ||
		got.SubState != board.SubBlocked {
		t.Fatalf("ticket %+v", got)
	}
	if !f.shows(ref) {
		t.Error("the issue does not show the ticket's state RESEARCH")
	}
	said := f.said(ref)
	if len(said) != 1 || !strings.Contains(said[0], "Which greeting: hello or hi?") || !tracker.HasMarker(said[0]) && f.settings.Tracker != board.TrackerJira {
		t.Fatalf("the issue's comments after the question: %q", said)
	}

	// 2. An outsider and a maintainer answer on the issue: the
	// maintainer's answer unblocks the ticket and reaches the agent.
	f.outsider(ref, "use yo")
	f.answer(ref, "Hello, world.")
	rep = e.beat()
	if rep.Trackers.Delivered != 1 || rep.Trackers.Held != 1 || len(rep.Runs) != 1 || e.runner.runs() != 2 {
		t.Fatalf("answer beat: trackers %+v, runs %+v", rep.Trackers, rep.Runs)
	}
	var note string
	for _, c := range e.comments(tk) {
		if c.AuthorType == board.System && strings.Contains(c.Content, "may not steer") {
			note = c.Content
		}
		if strings.Contains(c.Content, "use yo") {
			t.Errorf("the outsider's words are on the ticket: %+v", c)
		}
	}
	if !strings.Contains(note, "1 comment") || !strings.Contains(note, "allory") {
		t.Errorf("no note naming the outsider: %q", note)
	}

	// 3. Closed (deleted) by hand: the ticket stops, no agent runs.
	f.close(ref)
	rep = e.beat()
	l, err := e.db.IssueLink(context.Background(), tk)
	if err != nil || l.Status != f.closed || len(rep.Runs) != 0 {
		t.Fatalf("after closing: link %+v, %v; runs %+v", l, err, rep.Runs)
	}
	if e.get(tk).State != board.Backlog {
		t.Errorf("the closed issue's ticket is %s; want BACKLOG", e.get(tk).State)
	}

	// 4. Nothing new: one request, no model call, nothing written.
	before := f.requests()
	rep = e.beat()
	if n := f.requests() - before; n != 1 || len(rep.Runs) != 0 || rep.Trackers.Unchanged != 1 {
		t.Errorf("an idle beat made %d requests (want 1), runs %+v, trackers %+v", n, rep.Runs, rep.Trackers)
	}
	if e.runner.runs() != 2 {
		t.Errorf("%d agent runs; want 2", e.runner.runs())
	}
}
