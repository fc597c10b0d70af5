package heartbeat

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/gofrs/flock"
)

// Lock is the held heartbeat lock: an OS file lock on heartbeat.lock, which
// the kernel releases when the process dies, so a crashed beat never blocks
// the next one.
type Lock struct {
	fl *flock.Flock
}

// HeldError reports that another process holds the heartbeat lock.
type HeldError struct {
	// PID is the holder's process id as it wrote it in the lock file, or 0
	// when the file did not say.
	PID int
}

func (e *HeldError) Error() string {
	if e.PID == 0 {
		return "another heartbeat is running"
	}
	return fmt.Sprintf("another heartbeat is running (pid %d)", e.PID)
}

// TryLock takes the heartbeat lock at path without waiting and writes the
// process id into the file. When another process holds it, the error is a
// *HeldError naming that process.
func TryLock(path string) (*Lock, error) {
	fl := flock.New(path)
	ok, err := fl.TryLock()
	if err != nil {
		return nil, fmt.Errorf("take heartbeat lock: %w", err)
	}
	if !ok {
		return nil, &HeldError{PID: readPID(path)}
	}
	if err := os.WriteFile(path, []byte(strconv.Itoa(os.Getpid())+"\n"), 0o644); err != nil {
		fl.Unlock()
		return nil, fmt.Errorf("write heartbeat lock: %w", err)
	}
	return &Lock{fl: fl}, nil
}

// Unlock releases the lock. The file stays, so the next beat locks the same
// inode instead of racing on its creation.
func (l *Lock) Unlock() error {
	if l == nil || l.fl == nil {
		return nil
	}
	return l.fl.Unlock()
}

// readPID returns the process id written in the lock file, or 0.
func readPID(path string) int {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0
	}
	n, _ := strconv.Atoi(strings.TrimSpace(string(b)))
	return n
}

// IsHeld reports whether err says the lock is held by another process.
func IsHeld(err error) bool {
	var he *HeldError
	return errors.As(err, &he)
}
