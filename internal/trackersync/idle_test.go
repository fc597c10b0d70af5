package trackersync_test

import (
	"context"
	"testing"
	"time"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/forge"
	"github.com/bonsai-run/bonsai/internal/heartbeat"
)

// TestIdleBeatOfFiveTrackers: five projects, one on each tracker, each
// with an issue synced and its question posted. A beat with nothing new
// costs one conditional request per tracker and no model call, and the
// beat is not recorded idle (what comes in is not on the board).
func TestIdleBeatOfFiveTrackers(t *testing.T) {
	t.Parallel()
	hosts, vars := map[string]forge.Host{}, map[string]string{}
	fs := map[string]fakeTracker{}
	for _, k := range kinds {
		f := fakes(t, k)
		for h, fh := range f.hosts {
			hosts[h] = fh
		}
		for v, val := range f.env {
			vars[v] = val
		}
		fs[k] = f
	}
	e := newEnv(t, hosts, vars)
	for _, k := range kinds {
		f := fs[k]
		e.project(k, f.repo, f.settings)
		f.open("Greet the world", "- [ ] prints hello")
		e.runner.steps = append(e.runner.steps, ask(t, "Which greeting?"))
	}
	e.beat() // five tickets, five questions posted
	e.beat() // the lists changed by the questions and the state labels are read
	if n := e.runner.runs(); n != 5 {
		t.Fatalf("%d agent runs; want 5 questions", n)
	}
	before := map[string]int{}
	for k, f := range fs {
		before[k] = f.requests()
	}
	start := time.Now()
	rep := e.beat()
	took := time.Since(start)
	for k, f := range fs {
		if n := f.requests() - before[k]; n != 1 {
			t.Errorf("%s: an idle beat made %d requests; want 1", k, n)
		}
	}
	if rep.Trackers == nil || rep.Trackers.Trackers != 5 || rep.Trackers.Unchanged != 5 || len(rep.Runs) != 0 || e.runner.runs() != 5 {
		t.Errorf("idle beat: trackers %+v, runs %+v", rep.Trackers, rep.Runs)
	}
	if st := heartbeat.ReadState(e.data + "/heartbeat.json"); st.Idle != nil {
		t.Errorf("a beat with synced trackers was recorded idle: %+v", st.Idle)
	}
	t.Logf("an idle beat of five synced trackers: 5 requests, 0 model calls, %s", took)
	for _, k := range kinds {
		if tk, _ := e.db.Ticket(context.Background(), board.Ref{Project: k, Number: 1}); tk.SubState != board.SubBlocked {
			t.Errorf("%s#1 is %s/%s; want blocked on its question", k, tk.State, tk.SubState)
		}
	}
}
