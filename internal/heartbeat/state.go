package heartbeat

import (
	"encoding/json"
	"os"
	"path/filepath"
	"sync"
	"time"
)

// State is what one beat leaves for the next and for `bonsai status`:
// the last beat's report and the providers paused by a rate limit or a
// quota. It lives in a small JSON file next to the lock.
type State struct {
	LastBeat *Report `json:"lastBeat,omitempty"`
	// Paused maps a provider ("anthropic") to when it accepts requests
	// again.
	Paused map[string]time.Time `json:"paused,omitempty"`
	// Repos maps a project slug to its repository's failures to clone or
	// fetch; the project's picks wait until the backoff is over.
	Repos map[string]RepoBackoff `json:"repoBackoff,omitempty"`
	// Pushes maps a ticket ("demo#3") to its branch's failed pushes; an
	// entry stays until a later push of the ticket works.
	Pushes map[string]PushFailure `json:"pushFailures,omitempty"`
	// Sandbox maps a project slug to its streak of picks skipped because
	// the sandbox its commands require cannot start.
	Sandbox map[string]SandboxFailure `json:"sandboxUnavailable,omitempty"`
	// Idle is left by a beat that found nothing to do, for Unchanged.
	Idle *Idle `json:"idle,omitempty"`
}

// ReadState reads the state file; a missing or unreadable file is an empty
// state, never an error: the state only saves work.
func ReadState(path string) *State {
	st := &State{Paused: map[string]time.Time{}, Repos: map[string]RepoBackoff{}, Pushes: map[string]PushFailure{}, Sandbox: map[string]SandboxFailure{}}
	if path == "" {
		return st
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return st
	}
	if json.Unmarshal(b, st) != nil {
		return &State{Paused: map[string]time.Time{}, Repos: map[string]RepoBackoff{}, Pushes: map[string]PushFailure{}, Sandbox: map[string]SandboxFailure{}}
	}
	if st.Paused == nil {
		st.Paused = map[string]time.Time{}
	}
	if st.Repos == nil {
		st.Repos = map[string]RepoBackoff{}
	}
	if st.Pushes == nil {
		st.Pushes = map[string]PushFailure{}
	}
	if st.Sandbox == nil {
		st.Sandbox = map[string]SandboxFailure{}
	}
	return st
}

// ledger is the State of the current beat, written by its runs at once:
// every change goes through its lock. The beat reads and saves it
// before and after its runs.
type ledger struct {
	mu  sync.Mutex
	st  *State
	now func() time.Time
	// days divide the projects' daily budgets between their runs at once.
	days dayShares
}

// pause records that provider accepts requests again only at until.
func (l *ledger) pause(provider string, until time.Time) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if cur, ok := l.st.Paused[provider]; !ok || until.After(cur) {
		l.st.Paused[provider] = until
	}
}

// saveState writes the state to path ("": nowhere), dropping pauses that
// are over (repository backoffs stay, counting failures in a row, until
// the repository works). The beat holds the lock, so no other beat
// writes it at the same time. It writes in place (see overwrite) rather
// than through a rename, which would force a flush to disk on every idle
// beat; a torn file reads as an empty state.
func saveState(path string, st *State, now time.Time) error {
	if path == "" {
		return nil
	}
	return writeState(path, st, now)
}

// writeState writes st to path, dropping the pauses over at now.
func writeState(path string, st *State, now time.Time) error {
	for p, until := range st.Paused {
		if !now.Before(until) {
			delete(st.Paused, p)
		}
	}
	b, err := json.MarshalIndent(st, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	return overwrite(path, append(b, '\n'))
}
