package tools

import "sync"

// fileLocks serialises writes to one file: two edits of the same file in
// parallel would otherwise both read the old content and one would be lost.
type fileLocks struct {
	mu    sync.Mutex
	locks map[string]*fileLock
}

type fileLock struct {
	sync.Mutex
	users int
}

// lock takes the lock of key and returns its release function.
func (f *fileLocks) lock(key string) func() {
	f.mu.Lock()
	if f.locks == nil {
		f.locks = map[string]*fileLock{}
	}
	l := f.locks[key]
	if l == nil {
		l = &fileLock{}
		f.locks[key] = l
	}
	l.users++
	f.mu.Unlock()
	l.Lock()
	return func() {
		l.Unlock()
		f.mu.Lock()
		if l.users--; l.users == 0 {
			delete(f.locks, key)
		}
		f.mu.Unlock()
	}
}
