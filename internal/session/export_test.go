package session

// Writes returns how many writes the live file has had.
func (l *LiveWriter) Writes() int {
	l.wmu.Lock()
	defer l.wmu.Unlock()
	return l.writes
}

// Held returns how many bytes of an unfinished line the reader holds.
func (l *LiveReader) Held() int {
	if l.lines == nil {
		return 0
	}
	return l.lines.Held()
}
