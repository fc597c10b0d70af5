package agentrunner

// Writes returns how many writes the live file has had.
func (l *Live) Writes() int {
	l.wmu.Lock()
	defer l.wmu.Unlock()
	return l.writes
}
