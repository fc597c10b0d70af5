package sandbox

import (
	"testing"
)

// TestCommandPath: commands see the runtime's PATH without the entries
// the sandbox hides behind writable tmpfs mounts (the home, the data
// directory, /tmp, Options.Hide), where a program the agent wrote would
// run in place of the host's of the same name; a directory bound back
// stays.
func TestCommandPath(t *testing.T) {
	t.Parallel()
	s := &Executor{home: "/home/u", opts: Options{DataDir: "/srv/bonsai", Hide: []string{"/opt/secret"},
		Binds: []Bind{{Host: "/home/u/.local/share/engines", ReadOnly: true}}}}
	got := s.commandPath("/home/u/go/bin:.:/usr/local/go/bin:/srv/bonsai/bin:/tmp/x:/opt/secret/bin:/home/u/.local/share/engines/bin:/usr/bin")
	if want := "/usr/local/go/bin:/home/u/.local/share/engines/bin:/usr/bin"; got != want {
		t.Errorf("commandPath = %q, want %q", got, want)
	}
}
