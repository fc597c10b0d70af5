package heartbeat_test

import (
	"errors"
	"testing"
	"time"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/heartbeat"
)

// idleRecord is the state file's Idle record after the env's last beat.
func (e *env) idleRecord() *heartbeat.Idle {
	e.t.Helper()
	return heartbeat.ReadState(e.opts.StateFile).Idle
}

// unchanged asks heartbeat.Unchanged with the env's files and clock.
func (e *env) unchanged(stamp string) (heartbeat.Report, bool) {
	return heartbeat.Unchanged(e.opts.LockFile, e.opts.StateFile, stamp, e.opts.Now)
}

// TestIdle_RecordedAndAnswered: a beat that finds nothing to do records
// its caller's stamp until the next schedule firing (at most IdleFor
// away); a later beat with the same stamp is answered from the state file
// and becomes the last beat, one with another stamp, or past Until, is
// not.
func TestIdle_RecordedAndAnswered(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	clock := e.clock(monday9)
	e.project("demo", nil)
	e.ticket("demo", "Some day", board.Backlog) // not picked: the project does not take its backlog
	e.opts.Idle = func() string { return "stamp-1" }

	if rep := e.beat(); len(rep.Runs) != 0 || rep.Unchanged {
		t.Fatalf("first beat: %+v", rep)
	}
	idle := e.idleRecord()
	if idle == nil || idle.Stamp != "stamp-1" || !idle.Until.Equal(monday9.Add(heartbeat.IdleFor)) {
		t.Fatalf("Idle after an idle beat = %+v, want stamp-1 until %v", idle, monday9.Add(heartbeat.IdleFor))
	}

	clock.set(monday9.Add(time.Minute))
	rep, ok := e.unchanged("stamp-1")
	if !ok || !rep.Unchanged || len(rep.Runs) != 0 || !rep.StartedAt.Equal(monday9.Add(time.Minute)) {
		t.Fatalf("Unchanged with the same stamp = %+v, %v", rep, ok)
	}
	if last := heartbeat.ReadState(e.opts.StateFile).LastBeat; last == nil || !last.Unchanged || !last.StartedAt.Equal(rep.StartedAt) {
		t.Errorf("last beat after Unchanged = %+v", last)
	}
	if _, ok := e.unchanged("stamp-2"); ok {
		t.Error("Unchanged answered a beat whose stamp differs")
	}
	if _, ok := e.unchanged(""); ok {
		t.Error("Unchanged answered an empty stamp")
	}
	clock.set(monday9.Add(heartbeat.IdleFor))
	if _, ok := e.unchanged("stamp-1"); ok {
		t.Error("Unchanged answered a beat at Until")
	}
	clock.set(monday9.Add(-time.Minute)) // a clock set back
	if _, ok := e.unchanged("stamp-1"); ok {
		t.Error("Unchanged answered a beat before the last one")
	}
}

// TestIdle_UntilTheNextFiring: a schedule firing before IdleFor is over
// ends the record at its time, so the beat that fires it reads the board.
func TestIdle_UntilTheNextFiring(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.clock(monday9.Add(-2 * time.Minute))
	e.project("demo", nil)
	s := e.schedule(board.Schedule{ProjectSlug: "demo", Name: "soon", NextFire: monday9})
	e.schedule(board.Schedule{ProjectSlug: "demo", Name: "paused", NextFire: monday9.Add(-time.Minute), Paused: true})
	e.opts.Idle = func() string { return "stamp" }
	e.beat()
	idle := e.idleRecord()
	if idle == nil || !idle.Until.Equal(s.NextFire) {
		t.Fatalf("Idle = %+v, want until the firing at %v", idle, s.NextFire)
	}
}

// TestIdle_NotRecorded: a beat that has something to do (a ticket to
// pick, even one it skips), is limited to one project, or whose caller
// gives no stamp records nothing, and clears an older record.
func TestIdle_NotRecorded(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.clock(monday9)
	e.project("demo", nil)
	e.opts.Idle = func() string { return "stamp" }
	e.beat()
	if e.idleRecord() == nil {
		t.Fatal("an idle beat recorded nothing")
	}

	e.opts.Idle = func() string { return "" }
	e.beat()
	if idle := e.idleRecord(); idle != nil {
		t.Errorf("a beat without a stamp left %+v", idle)
	}

	e.opts.Idle = func() string { return "stamp" }
	e.opts.Project = "demo"
	e.beat()
	if idle := e.idleRecord(); idle != nil {
		t.Errorf("a beat of one project recorded %+v", idle)
	}
	e.opts.Project = ""

	e.ticket("demo", "Work", board.InProgress)
	e.runner.ready = func(string) error { return errors.New("no API key") } // the pick is skipped: still something to do
	if rep := e.beat(); len(rep.Runs) != 1 || rep.Runs[0].Skipped == "" {
		t.Fatalf("beat with a ticket whose model has no key: %+v", rep.Runs)
	}
	if idle := e.idleRecord(); idle != nil {
		t.Errorf("a beat that skipped a pick recorded %+v", idle)
	}
}
