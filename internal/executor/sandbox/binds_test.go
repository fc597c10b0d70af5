package sandbox

import (
	"os"
	"path/filepath"
	"testing"
)

// A bound directory below the hidden data directory is visible at its own
// path, read-write or read-only as asked; the rest stays hidden.
func TestBinds(t *testing.T) {
	requireBwrap(t)
	data := t.TempDir()
	rw, ro, other := filepath.Join(data, "engines", "home"), filepath.Join(data, "engines", "config"), filepath.Join(data, "secret")
	for _, d := range []string{rw, ro, other} {
		must(t, os.MkdirAll(d, 0o700))
	}
	must(t, os.WriteFile(filepath.Join(ro, "prompt.md"), []byte("rules\n"), 0o600))
	must(t, os.WriteFile(filepath.Join(other, "token"), []byte("tok\n"), 0o600))
	for _, per := range []bool{false, true} {
		s := open(t, t.TempDir(), Options{DataDir: data, PerCommand: per, Binds: []Bind{{Host: rw}, {Host: ro, ReadOnly: true}}})
		if code, out := shell(t, s, "echo session > "+rw+"/s.json && cat "+ro+"/prompt.md"); code != 0 || out != "rules\n" {
			t.Errorf("per command %v: the bound directories: exit %d, %q", per, code, out)
		}
		if code, out := shell(t, s, "echo x > "+ro+"/prompt.md || rm "+ro+"/prompt.md || ln -s /etc "+ro+"/l"); code == 0 {
			t.Errorf("per command %v: the read-only directory was written: %q", per, out)
		}
		if code, out := shell(t, s, "cat "+other+"/token"); code == 0 {
			t.Errorf("per command %v: the data directory's other files show: %q", per, out)
		}
	}
	if b, err := os.ReadFile(filepath.Join(rw, "s.json")); err != nil || string(b) != "session\n" {
		t.Errorf("the writable bind's file: %q, %v", b, err)
	}
	if b, _ := os.ReadFile(filepath.Join(ro, "prompt.md")); string(b) != "rules\n" {
		t.Errorf("the read-only file is now %q", b)
	}
	if _, err := New(t.TempDir(), Options{Binds: []Bind{{Host: "relative"}}}); err == nil {
		t.Error("a relative bind was taken")
	}
}
