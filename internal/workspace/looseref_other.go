//go:build !linux

package workspace

// readLooseRef reads nothing off Linux (no openat2): the caller asks git.
func readLooseRef(projects, rel string) string { return "" }
