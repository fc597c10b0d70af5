package trackersync_test

import (
	"context"
	"strings"
	"testing"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/forge"
	"github.com/bonsai-run/bonsai/internal/forge/forgetest"
)

// A revoked token fails each sync with a note on the ticket once per
// streak, naming the fix and not the token; the answer written meanwhile
// arrives once the token works again, once.
func TestRevokedTokenNotedOnceAndNothingLost(t *testing.T) {
	t.Parallel()
	srv := forgetest.New(t, forge.GitHub)
	repo := srv.GitRepo(t, "acme", "widget", map[string]string{"README.md": "# widget\n"})
	e := newEnv(t, map[string]forge.Host{srv.Host(): {Kind: forge.GitHub}}, map[string]string{"GITHUB_TOKEN": forgetest.Token})
	e.project("demo", repo, board.AgentSettings{Tracker: board.TrackerGitHub, TrackerLabels: []string{"bonsai"}})
	n := srv.OpenIssue("acme", "widget", "acme", "Greet the world", "Say hello.", "bonsai")
	e.runner.steps = append(e.runner.steps, ask(t, "Which greeting?"))
	e.beat()
	tk := board.Ref{Project: "demo", Number: 1}

	srv.SetToken("ghp_the_new_one_0123456789")
	srv.CommentIssue("acme", "widget", n, "carol", "Hello, world.")
	for range 3 {
		rep := e.beat()
		if rep.Trackers == nil || len(rep.Trackers.Failures) != 1 || !strings.Contains(rep.Trackers.Failures[0].Error, "credentials set github") {
			t.Fatalf("a beat with a revoked token: %+v", rep.Trackers)
		}
	}
	var notes []string
	for _, c := range e.comments(tk) {
		if strings.Contains(c.Content, "Could not sync") {
			notes = append(notes, c.Content)
		}
		if strings.Contains(c.Content, forgetest.Token) {
			t.Errorf("a comment shows the token: %q", c.Content)
		}
	}
	if len(notes) != 1 || !strings.Contains(notes[0], "credentials set github") {
		t.Fatalf("notes about the failing sync: %q; want one naming the fix", notes)
	}
	st, _ := e.db.TrackerSync(context.Background(), "demo")
	if st.Failures != 3 || st.Error == "" {
		t.Errorf("sync state %+v", st)
	}
	if e.get(tk).SubState != board.SubBlocked {
		t.Fatal("the ticket was unblocked while the tracker could not be read")
	}

	// The token works again: the answer arrives, once.
	srv.SetToken(forgetest.Token)
	e.runner.steps = append(e.runner.steps, ask(t, "And the punctuation?"))
	e.beat()
	e.beat()
	answers := 0
	for _, c := range e.comments(tk) {
		if c.AuthorType == board.Human && strings.Contains(c.Content, "Hello, world.") {
			answers++
		}
	}
	if answers != 1 {
		t.Errorf("the answer arrived %d times; want once", answers)
	}
	if st, _ := e.db.TrackerSync(context.Background(), "demo"); st.Failures != 0 || st.Error != "" {
		t.Errorf("sync state after recovery %+v", st)
	}
}

// A tracker that answers 503 while a comment is read leaves the list's
// validator where it was, so the next beat lists again and delivers the
// comment once the tracker is back: nothing lost, nothing twice.
func TestTrackerDownWhileReadingComments(t *testing.T) {
	t.Parallel()
	srv := forgetest.New(t, forge.GitHub)
	repo := srv.GitRepo(t, "acme", "widget", map[string]string{"README.md": "# widget\n"})
	e := newEnv(t, map[string]forge.Host{srv.Host(): {Kind: forge.GitHub}}, map[string]string{"GITHUB_TOKEN": forgetest.Token})
	e.project("demo", repo, board.AgentSettings{Tracker: board.TrackerGitHub, TrackerLabels: []string{"bonsai"}})
	n := srv.OpenIssue("acme", "widget", "acme", "Greet the world", "Say hello.", "bonsai")
	e.runner.steps = append(e.runner.steps, ask(t, "Which greeting?"), ask(t, "Anything else?"))
	e.beat()
	srv.CommentIssue("acme", "widget", n, "carol", "Hello, world.")
	srv.Fail("GET", "/comments", 503, "unicorn")
	rep := e.beat()
	if len(rep.Trackers.Failures) != 1 || !strings.Contains(rep.Trackers.Failures[0].Error, "503") || rep.Trackers.Delivered != 0 {
		t.Fatalf("a beat with the comments failing: %+v", rep.Trackers)
	}
	tk := board.Ref{Project: "demo", Number: 1}
	if e.get(tk).SubState != board.SubBlocked {
		t.Fatal("unblocked without the answer")
	}
	srv.Heal()
	rep = e.beat()
	if rep.Trackers.Delivered != 1 || len(rep.Trackers.Failures) != 0 {
		t.Fatalf("after the tracker came back: %+v", rep.Trackers)
	}
	e.beat()
	answers := 0
	for _, c := range e.comments(tk) {
		if c.AuthorType == board.Human {
			answers++
		}
	}
	if answers != 1 || e.runner.runs() != 2 {
		t.Errorf("%d answers on the ticket, %d runs; want 1 and 2", answers, e.runner.runs())
	}
}
