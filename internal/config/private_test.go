package config

import (
	"io/fs"
	"os"
	"runtime"
	"strings"
	"testing"
)

// TestInit_PrivateWhateverTheParent checks that Init, in a data directory
// made beforehand with mode 0755, tightens it with a warning and writes its
// files 0600 and directories 0700; a second Init has nothing to say.
func TestInit_PrivateWhateverTheParent(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no Unix modes on Windows")
	}
	t.Parallel()
	d := Dir(t.TempDir() + "/data")
	if err := os.Mkdir(string(d), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(string(d), 0o755); err != nil { // whatever the umask
		t.Fatal(err)
	}
	res, err := Init(d)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Warnings) != 1 || !strings.Contains(res.Warnings[0], "(mode 0755); changed it to 0700") {
		t.Errorf("warnings = %q, want one saying the directory was changed to 0700", res.Warnings)
	}
	want := map[string]fs.FileMode{"": 0o700, "logs": 0o700, "sessions": 0o700, "projects": 0o700, "worktrees": 0o700, "config.json": 0o600, "web-token": 0o600}
	for name, mode := range want {
		fi, err := os.Stat(d.Path(name))
		if err != nil {
			t.Fatal(err)
		}
		if got := fi.Mode().Perm(); got != mode {
			t.Errorf("%s: mode %04o, want %04o", name, got, mode)
		}
	}
	if err := Save(d.ConfigFile(), Default()); err != nil {
		t.Fatal(err)
	}
	if fi, _ := os.Stat(d.ConfigFile()); fi.Mode().Perm() != 0o600 {
		t.Errorf("config.json after Save: mode %04o, want 0600", fi.Mode().Perm())
	}
	res, err = Init(d)
	if err != nil || len(res.Warnings) != 0 {
		t.Errorf("second Init: %v, warnings %q; want none", err, res.Warnings)
	}
}

// TestInit_SharedDirectoryIsLeft checks that a sticky directory, shared on
// purpose like /tmp, is not changed: the warning says how to fix it.
func TestInit_SharedDirectoryIsLeft(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no Unix modes on Windows")
	}
	t.Parallel()
	d := Dir(t.TempDir())
	if err := os.Chmod(string(d), 0o777|fs.ModeSticky); err != nil {
		t.Fatal(err)
	}
	res, err := Init(d)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Warnings) != 1 || !strings.Contains(res.Warnings[0], "it is shared, so bonsai left it") || !strings.Contains(res.Warnings[0], "chmod 700 "+string(d)) {
		t.Errorf("warnings = %q, want one saying the shared directory was left and how to fix it", res.Warnings)
	}
	fi, err := os.Stat(string(d))
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o777 || fi.Mode()&fs.ModeSticky == 0 {
		t.Errorf("shared directory's mode changed to %v", fi.Mode())
	}
}

// TestExposed lists what other users can reach, and changes nothing.
func TestExposed(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no Unix modes on Windows")
	}
	t.Parallel()
	d := Dir(t.TempDir() + "/data")
	if _, err := Init(d); err != nil {
		t.Fatal(err)
	}
	if got, err := Exposed(d); err != nil || len(got) != 0 {
		t.Fatalf("a new data directory: %+v, %v", got, err)
	}
	for p, mode := range map[string]fs.FileMode{"": 0o755, "logs": 0o750, "web-token": 0o644} {
		if err := os.Chmod(d.Path(p), mode); err != nil {
			t.Fatal(err)
		}
	}
	got, err := Exposed(d)
	if err != nil {
		t.Fatal(err)
	}
	want := []Exposure{
		{Path: d.Path(""), Mode: 0o755, Want: 0o700, Dir: true},
		{Path: d.Path("logs"), Mode: 0o750, Want: 0o700, Dir: true},
		{Path: d.Path("web-token"), Mode: 0o644, Want: 0o600},
	}
	if len(got) != len(want) {
		t.Fatalf("Exposed = %+v, want %+v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("Exposed[%d] = %+v, want %+v", i, got[i], want[i])
		}
	}
	if fi, _ := os.Stat(string(d)); fi.Mode().Perm() != 0o755 {
		t.Errorf("Exposed changed the directory's mode to %04o", fi.Mode().Perm())
	}
}
