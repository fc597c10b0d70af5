package local

import (
	"errors"
	"slices"
	"strings"
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

// reaper serves KillMarked: the calls of one process share its scans.
var reaper Reaper

// KillMarked kills, with SIGKILL, every process of this user whose
// environment holds the KEY=VALUE pair kv, and the process groups they
// lead or belong to (other than the caller's own), until none is left. It
// returns how many processes it found. On systems where the environment of
// other processes cannot be read (everything but Linux) it finds none and
// returns 0 and nil. Concurrent calls share their scans of the process
// table (see Reaper), so the runs of a beat that end together do not each
// read the environment of every process.
func KillMarked(kv string) (int, error) {
	return reaper.Kill(kv)
}

// checkMark refuses a mark that is not KEY=VALUE.
func checkMark(kv string) error {
	if !strings.Contains(kv, "=") {
		return errors.New("kill marked: want KEY=VALUE")
	}
	return nil
}
