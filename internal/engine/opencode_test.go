package engine_test

// cut is s, or its first 300 bytes, for a log line.
func cut(s string) string {
	if len(s) > 300 {
		return s[:300]
	}
	return s
}
