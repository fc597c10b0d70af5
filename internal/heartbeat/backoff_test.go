package heartbeat_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/heartbeat"
)

// TestBeat_RepoBackoff points a project at a repository that cannot be
// cloned: the first beat records one run error, the beats after it skip
// the project (no run, no comment) until the backoff is over, each
// failure doubles the wait, and fixing the repository ends it at once.
func TestBeat_RepoBackoff(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	var skew time.Duration
	e.opts.Now = func() time.Time { return time.Now().Add(skew) }
	good := e.project("demo", nil).Repo
	missing := filepath.Join(t.TempDir(), "gone")
	if _, err := e.db.UpdateProject(context.Background(), "demo", board.ProjectPatch{Repo: &missing}); err != nil {
		t.Fatal(err)
	}
	tk := e.ticket("demo", "Work", board.InProgress)

	rep := e.beat()
	if rep.Runs[0].Status != board.RunError || !strings.Contains(rep.Runs[0].Error, "clone") {
		t.Fatalf("first beat = %+v", rep.Runs[0])
	}
	st := heartbeat.ReadState(e.opts.StateFile)
	b := st.Repos["demo"]
	if b.Failures != 1 || b.Repo != missing || b.Until.Sub(time.Now()) < heartbeat.RepoBackoffMin-time.Second {
		t.Fatalf("backoff after one failure = %+v", b)
	}

	rep = e.beat()
	if len(e.runs(tk.Ref())) != 1 || !strings.Contains(rep.Runs[0].Skipped, "repository of demo failed 1 time(s)") {
		t.Fatalf("second beat = %+v, runs %d", rep.Runs, len(e.runs(tk.Ref())))
	}

	skew = heartbeat.RepoBackoffMin + time.Second
	e.beat()
	if n := len(e.runs(tk.Ref())); n != 2 {
		t.Fatalf("%d runs after the backoff, want 2", n)
	}
	b = heartbeat.ReadState(e.opts.StateFile).Repos["demo"]
	if b.Failures != 2 || b.Until.Sub(e.opts.Now()) < 2*heartbeat.RepoBackoffMin-time.Second {
		t.Errorf("backoff after two failures = %+v, want twice as long", b)
	}

	// Editing the repository ends the backoff at once; a working clone
	// forgets it.
	if _, err := e.db.UpdateProject(context.Background(), "demo", board.ProjectPatch{Repo: &good}); err != nil {
		t.Fatal(err)
	}
	rep = e.beat()
	if rep.Runs[0].Status != board.RunCompleted {
		t.Fatalf("beat after the fix = %+v", rep.Runs[0])
	}
	if _, ok := heartbeat.ReadState(e.opts.StateFile).Repos["demo"]; ok {
		t.Error("the backoff outlived a working clone")
	}
}

// TestBeat_FailedCloneCommentsOnce points a project at a URL with
// credentials that cannot be cloned: the ticket gets one comment from the
// runtime saying so, without the credentials or the data directory's
// paths, and the retries after each backoff add no other.
func TestBeat_FailedCloneCommentsOnce(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.NotFoundHandler())
	defer srv.Close()
	e := newEnv(t)
	var skew time.Duration
	e.opts.Now = func() time.Time { return time.Now().Add(skew) }
	url := strings.Replace(srv.URL, "http://", "http://bonsai:s3cret-token@", 1) + "/gone.git"
	e.project("demo", func(p *board.Project) { p.Repo = url })
	tk := e.ticket("demo", "Work", board.InProgress)

	e.beat()
	e.beat() // within the backoff: skipped
	skew = heartbeat.RepoBackoffMin + time.Second
	e.beat()
	if n := len(e.runs(tk.Ref())); n != 2 {
		t.Fatalf("%d runs, want 2 (one before the backoff, one after)", n)
	}
	var notes []board.Comment
	for _, c := range e.comments(tk.Ref()) {
		if c.AuthorType == board.System {
			notes = append(notes, c)
		}
	}
	if len(notes) != 1 || !strings.Contains(notes[0].Content, "could not be used") || !strings.Contains(notes[0].Content, "clone") {
		t.Fatalf("runtime comments = %+v, want one about the repository", notes)
	}
	if c := notes[0].Content; strings.Contains(c, "s3cret-token") || strings.Contains(c, e.data) {
		t.Errorf("the comment shows credentials or a host path:\n%s", c)
	}
}
