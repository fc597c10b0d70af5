package local

import (
	"errors"
	"slices"
	"strings"
	"time"
)

// Mark adds the KEY=VALUE pair kv to the environment of every command the
// executor starts from now on. Descendants inherit it even when they leave
// the command's process group (setsid, double forks), so KillMarked can
// find what a command left running after its runtime died. Call it before
// the executor is shared. The pair is no secret: it names, it does not
// grant. A pair the executor already has is not added again.
func (l *Executor) Mark(kv string) {
	if !slices.Contains(l.marks, kv) {
		l.marks = append(l.marks, kv)
	}
}

// killRetries bounds how often KillMarked scans again for processes that
// were forked while it killed.
const killRetries = 50

// ErrSurvivors means processes carrying a mark were still alive after
// KillMarked killed them.
var ErrSurvivors = errors.New("processes survived SIGKILL")

// KillMarked kills, with SIGKILL, every process of this user whose
// environment holds the KEY=VALUE pair kv, and the process groups they
// lead or belong to (other than the caller's own), until none is left. It
// returns how many processes it found. On systems where the environment of
// other processes cannot be read (everything but Linux) it finds none and
// returns 0 and nil.
func KillMarked(kv string) (int, error) {
	if !strings.Contains(kv, "=") {
		return 0, errors.New("kill marked: want KEY=VALUE")
	}
	seen := map[int]bool{}
	for i := 0; i < killRetries; i++ {
		ps, err := marked(kv)
		if err != nil {
			return len(seen), err
		}
		if len(ps) == 0 {
			return len(seen), nil
		}
		for _, p := range ps {
			seen[p.pid] = true
			kill(p)
		}
		// A killed process lingers until its parent reaps it; its
		// environment reads empty as soon as it is dead.
		time.Sleep(time.Duration(i+1) * time.Millisecond)
	}
	return len(seen), ErrSurvivors
}
