package heartbeat

import (
	"errors"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/bonsai-run/bonsai/internal/board"
)

// TestLedger keeps the failures in a row of pushes and repositories, and
// the latest pause, written by runs at once, until saved.
func TestLedger(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)
	l := &ledger{st: ReadState(""), now: func() time.Time { return now }}
	p := board.Project{Slug: "demo", Repo: "https://example.com/d.git"}
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			l.pushFailed("demo#1", "bonsai/demo-1", "rejected")
			l.pause("anthropic", now.Add(time.Minute))
		})
	}
	wg.Wait()
	if f := l.st.Pushes["demo#1"]; f.Failures != 4 || f.Error != "rejected" {
		t.Fatalf("push failures = %+v, want 4 in a row", f)
	}
	if f := l.pushFailed("demo#1", "bonsai/demo-1-b", "again"); f.Failures != 1 {
		t.Fatalf("a failure of another branch = %+v, want a new streak", f)
	}
	l.pushWorked("demo#1")
	if _, ok := l.st.Pushes["demo#1"]; ok {
		t.Fatal("a push that worked left its failures")
	}
	l.pause("anthropic", now.Add(-time.Hour))
	if got := l.st.Paused["anthropic"]; !got.Equal(now.Add(time.Minute)) {
		t.Fatalf("an earlier pause shortened the pause to %s", got)
	}
	b := l.repoFailed(p, errors.New("no such host"))
	if b.Failures != 1 || repoBlocker(l.st, p, now) == "" || repoBlocker(l.st, p, b.Until) != "" {
		t.Fatalf("repo backoff = %+v; the repository must wait until %s only", b, b.Until)
	}
	l.repoWorked(p)
	if repoBlocker(l.st, p, now) != "" {
		t.Fatal("a repository that worked still waits")
	}
	path := filepath.Join(t.TempDir(), "heartbeat.json")
	if err := saveState(path, l.st, now.Add(2*time.Minute)); err != nil {
		t.Fatal(err)
	}
	if back := ReadState(path); len(back.Paused) != 0 {
		t.Fatalf("a pause over when saved was kept: %v", back.Paused)
	}
}
