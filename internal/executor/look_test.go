package executor_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bonsai-run/bonsai/internal/executor"
)

func program(t *testing.T, dir, name string, mode os.FileMode) string {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte("#!/bin/sh\n"), mode); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestProgramResolver: a bare name resolves to the first executable of
// that name on PATH, but to nothing when a relative or empty entry, or a
// directory the agent can write, comes first: a program the agent puts
// there would run instead (issue 25, finding 4).
func TestProgramResolver(t *testing.T) {
	t.Parallel()
	base := t.TempDir()
	sys, other, agent := filepath.Join(base, "sys"), filepath.Join(base, "other"), filepath.Join(base, "home")
	mk := program(t, sys, "make", 0o755)
	program(t, sys, "plain", 0o644)
	otherMake := program(t, other, "make", 0o755)
	program(t, filepath.Join(agent, "bin"), "evil", 0o755)
	list := func(dirs ...string) string { return strings.Join(dirs, string(filepath.ListSeparator)) }
	for _, tc := range []struct {
		path, name, want string
	}{
		{list(sys, other), "make", mk},
		{list(other, sys), "make", otherMake},
		{list(sys), "plain", ""},
		{list(sys), "missing", ""},
		{list(sys), "../sys/make", ""},
		{list(filepath.Join(agent, "bin"), sys), "make", ""},
		{list(filepath.Join(agent, "bin"), sys), "evil", ""},
		{list(sys, filepath.Join(agent, "bin")), "make", mk},
		{list(sys, filepath.Join(agent, "bin")), "evil", ""},
		{list("", sys), "make", ""},
		{list("bin", sys), "make", ""},
	} {
		if got := executor.ProgramResolver(tc.path, agent)(tc.name); got != tc.want {
			t.Errorf("PATH=%s: %s resolves to %q, want %q", tc.path, tc.name, got, tc.want)
		}
	}
}

// TestHiddenPath: the sandbox's PATH keeps host directories and the
// bound-back ones, and drops relative entries and the hidden, writable
// ones.
func TestHiddenPath(t *testing.T) {
	t.Parallel()
	got := executor.HiddenPath("/home/u/go/bin:/usr/local/bin::bin:/home/u/.cache/engines/bin:/srv/data/x:/tmp/b:/usr/bin",
		[]string{"/home/u", "/srv/data", "/tmp"}, []string{"/home/u/.cache/engines"})
	if want := "/usr/local/bin:/home/u/.cache/engines/bin:/usr/bin"; got != want {
		t.Errorf("HiddenPath = %q, want %q", got, want)
	}
}
