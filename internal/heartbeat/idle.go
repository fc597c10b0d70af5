package heartbeat

import (
	"context"
	"errors"
	"time"
)

// Idle beats (docs/heartbeat.md, "Idle beats"). A beat that finds nothing
// to do — no run to reconcile, no pull request to follow, no worktree to
// remove, no schedule due, no ticket to pick, not even one it would skip —
// records the stamp its caller took of the board before the beat read it.
// While the stamp stays the same nothing has written to the board, so the
// next beat would find the same nothing: Unchanged answers it from the
// state file without opening the board, until Idle.Until. Everything an
// idle beat depends on besides time is on the board (a ticket becomes
// pickable, a run starts, a pull request opens only by a write); the
// settings that could stop a pick (budgets, keys, pauses) matter only once
// there is one. Time matters through the schedules, so Until is the next
// firing, and at most IdleFor after the beat, which bounds what a missed
// change could cost.

// IdleFor is how long a beat that found nothing to do vouches for the
// board at most: the first beat after it reads the board again.
const IdleFor = 5 * time.Minute

// Idle is what the last beat that found nothing to do left for the next
// ones: the stamp of the board and settings it saw, and until when
// beats that see the same stamp may trust it.
type Idle struct {
	Stamp string    `json:"stamp"`
	Until time.Time `json:"until"`
}

// Unchanged is the beat of a board that has not changed since a beat that
// found nothing to do: when the state file's Idle record holds stamp and
// now is before its Until, it records this beat as the last one (Report
// Unchanged, nothing run) and returns it with true, having read nothing
// but the state file. Else, or when another beat holds the lock, it
// returns false and the caller beats as usual. stamp must be one the
// caller would pass as Options.Idle; "" never matches.
func Unchanged(lockFile, stateFile, stamp string, now func() time.Time) (Report, bool) {
	if stamp == "" || stateFile == "" {
		return Report{}, false
	}
	lock, err := TryLock(lockFile)
	if err != nil {
		return Report{}, false
	}
	defer lock.Unlock()
	start := now()
	st := ReadState(stateFile)
	if st.Idle == nil || st.Idle.Stamp != stamp || !start.Before(st.Idle.Until) ||
		st.LastBeat == nil || start.Before(st.LastBeat.StartedAt) {
		return Report{}, false
	}
	rep := Report{Unchanged: true, Runs: []RunReport{}, StartedAt: start, FinishedAt: now()}
	st.LastBeat = &rep
	if writeState(stateFile, st, rep.FinishedAt) != nil {
		return Report{}, false
	}
	return rep, true
}

// errNotIdle ends idleUntil: the beat did something, or could not tell.
var errNotIdle = errors.New("not idle")

// idleUntil returns until when the board stays as an idle beat left it
// at now, unless something writes to it: the next schedule firing, at
// most IdleFor away.
func idleUntil(ctx context.Context, sched Scheduler, now time.Time) (time.Time, error) {
	until := now.Add(IdleFor)
	due, err := sched.DueSchedules(ctx, until)
	if err != nil {
		return time.Time{}, err
	}
	for _, s := range due {
		if s.NextFire.Before(until) {
			until = s.NextFire
		}
	}
	if !now.Before(until) {
		return time.Time{}, errNotIdle
	}
	return until, nil
}
