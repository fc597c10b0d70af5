package trackersync_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/forge"
	"github.com/bonsai-run/bonsai/internal/forge/forgetest"
	"github.com/bonsai-run/bonsai/internal/heartbeat"
)

// TestRateLimitKeptAcrossBeats: GitHub says to wait an hour; the beats
// after ask it nothing until then (no request, however many beats), the
// sync state says until when, doctor's probe and a sync hook say so
// without asking; once the time has passed the sync goes through and
// the limit is forgotten.
func TestRateLimitKeptAcrossBeats(t *testing.T) {
	t.Parallel()
	srv := forgetest.New(t, forge.GitHub)
	repo := srv.GitRepo(t, "acme", "widget", map[string]string{"README.md": "# widget\n"})
	e := newEnv(t, map[string]forge.Host{srv.Host(): {Kind: forge.GitHub}}, map[string]string{"GITHUB_TOKEN": forgetest.Token})
	p := e.project("demo", repo, board.AgentSettings{Tracker: board.TrackerGitHub, TrackerLabels: []string{"bonsai"}})
	srv.OpenIssue("acme", "widget", "acme", "Fix the login", "It breaks.", "bonsai")
	srv.RateLimit(1, 3600)
	before := len(srv.Requests())
	rep := e.beat()
	if len(rep.Trackers.Failures) != 1 || !strings.Contains(rep.Trackers.Failures[0].Error, "the sync waits until") {
		t.Fatalf("first beat's tracker report %+v", rep.Trackers)
	}
	if n := len(srv.Requests()) - before; n != 1 {
		t.Fatalf("the rate-limited sync made %d requests, want 1 (no retry of an hour's wait)", n)
	}
	ctx := context.Background()
	lim, err := e.db.TrackerLimit(ctx, "demo")
	if err != nil || lim.Until.Before(time.Now().Add(59*time.Minute)) || lim.Tracker != board.TrackerGitHub {
		t.Fatalf("limit kept %+v, %v", lim, err)
	}
	st, _ := e.db.TrackerSync(ctx, "demo")
	if st.Failures != 1 || !strings.Contains(st.Error, "rate limit") || !strings.Contains(st.Error, "the sync waits until") {
		t.Fatalf("sync state %+v", st)
	}
	before = len(srv.Requests())
	for range 3 {
		if rep := e.beat(); len(rep.Trackers.Failures) != 0 {
			t.Fatalf("a waiting beat reported %+v", rep.Trackers)
		}
	}
	what, err := e.sync.Probe(ctx, p)
	if err != nil || !strings.Contains(what, "rate limited for") {
		t.Fatalf("doctor's probe while waiting: %q, %v", what, err)
	}
	if _, err := e.sync.SyncNow(ctx, "demo"); err == nil || !strings.Contains(err.Error(), "the sync waits") {
		t.Fatalf("a sync hook while waiting: %v", err)
	}
	if n := len(srv.Requests()) - before; n != 0 {
		t.Fatalf("%d requests while the tracker said to wait", n)
	}
	if links, _ := e.db.IssueLinks(ctx, "demo"); len(links) != 0 {
		t.Fatalf("links while waiting: %+v", links)
	}
	// The hour has passed; the new ticket's agent just ends its run.
	e.runner.steps = append(e.runner.steps, func(context.Context, heartbeat.Job) heartbeat.Outcome {
		return heartbeat.Outcome{Status: board.RunCompleted}
	})
	lim.Until = time.Now().Add(-time.Second)
	if _, err := e.db.SaveTrackerLimit(ctx, lim); err != nil {
		t.Fatal(err)
	}
	if rep := e.beat(); len(rep.Trackers.Failures) != 0 || rep.Trackers.Created != 1 {
		t.Fatalf("beat after the wait %+v", rep.Trackers)
	}
	if lim, _ := e.db.TrackerLimit(ctx, "demo"); !lim.Until.IsZero() {
		t.Fatalf("limit kept after a sync went through: %+v", lim)
	}
	if st, _ := e.db.TrackerSync(ctx, "demo"); st.Error != "" || st.Failures != 0 {
		t.Fatalf("sync state after the wait %+v", st)
	}
}
