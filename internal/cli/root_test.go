package cli

import (
	"io"
	"strings"
	"testing"
)

func TestLongRunning(t *testing.T) {
	t.Parallel()
	root := newRootCmd(newApp(strings.NewReader(""), io.Discard, io.Discard, func(string) string { return "" }))
	for path, want := range map[string]bool{
		"up": true, "serve": true, "heartbeat": true, "worker": true, "run": true,
		"status": false, "ticket list": false, "project add": false, "tool": false, "version": false,
	} {
		cmd, _, err := root.Find(strings.Fields(path))
		if err != nil {
			t.Fatalf("find %q: %v", path, err)
		}
		if got := longRunning(cmd); got != want {
			t.Errorf("longRunning(%q) = %v, want %v", path, got, want)
		}
	}
}
