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
	if err := overwrite(path, []byte(strconv.Itoa(os.Getpid())+"\n")); err != nil {
		fl.Unlock()
		return nil, fmt.Errorf("write heartbeat lock: %w", err)
	}
	return &Lock{fl: fl}, nil
}

// overwrite replaces the content of a small file in place. It writes
// first and then cuts the file to length, never truncating it to zero:
// on ext4 a truncate to zero (like a rename over a file) forces the data to
// disk on close, which would cost an idle beat milliseconds.
func overwrite(path string, data []byte) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE, 0o600)
	if err != nil {
		return err
	}
	_, err = f.WriteAt(data, 0)
	if err == nil {
		err = f.Truncate(int64(len(data)))
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
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
