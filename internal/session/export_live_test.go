package session

// HoldWrites keeps the live file's writes waiting until release is
// called, so that a test can queue a whole message before any write.
func (l *LiveWriter) HoldWrites() (release func()) {
	l.wmu.Lock()
	return l.wmu.Unlock
}

// Idle reports whether nothing is pending and no write is in flight.
func (l *LiveWriter) Idle() bool {
	l.wmu.Lock()
	defer l.wmu.Unlock()
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.pending) == 0 && l.timer == nil
}
