package sandbox

import (
	"os"
	"sync"
	"syscall"
)

// keptCounters holds a cgroup's counter files open, so that reading the
// counters before and after each command costs two preads, not two
// opens, reads and closes each time. The files are the host's: below
// the cgroup file system's mount, found through /proc/self, which
// nothing in the sandbox can write (its /sys is read-only).
type keptCounters struct {
	mu        sync.Mutex
	pids, mem *os.File // nil until first read, or after a failed read
	closed    bool     // close was called: nothing is opened again
}

// field reads the number after name in the counter file *f, opening
// path into *f first when it is not open. A kept file whose read fails
// (its cgroup was removed, by a sweep of an executor idle past sweepAge,
// and made again) is closed and path opened once more. mu is held.
func (k *keptCounters) field(f **os.File, path, name string) int64 {
	for attempt := 0; attempt < 2; attempt++ {
		if *f == nil {
			if k.closed {
				return 0
			}
			g, err := os.Open(path)
			if err != nil {
				return 0
			}
			*f = g
		}
		b, err := preadAll(*f)
		if err == nil {
			return field(b, name)
		}
		(*f).Close()
		*f = nil
	}
	return 0
}

// preadAll reads the whole of a small file from offset 0 without moving
// its offset, in one pread(2) when it fits the buffer (a cgroup file's
// read at 0 shows its current content; os.File.ReadAt would make a
// second call to see the end).
func preadAll(f *os.File) ([]byte, error) {
	b := make([]byte, 1024)
	for {
		n, err := syscall.Pread(int(f.Fd()), b, 0)
		if err != nil {
			return nil, err
		}
		if n < len(b) {
			return b[:n], nil
		}
		b = make([]byte, 2*len(b))
	}
}

// close closes the kept files; later reads open none.
func (k *keptCounters) close() {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.closed = true
	for _, f := range []**os.File{&k.pids, &k.mem} {
		if *f != nil {
			(*f).Close()
			*f = nil
		}
	}
}
