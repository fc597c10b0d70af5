package local

import (
	"os"
	"path/filepath"
	"testing"
)

func TestLocal_HidePaths(t *testing.T) {
	real := t.TempDir()
	link := filepath.Join(t.TempDir(), "ws")
	if err := os.Symlink(real, link); err != nil {
		t.Skip("symlinks:", err)
	}
	l, err := New(link, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	root, given := filepath.ToSlash(l.root), filepath.ToSlash(l.given)
	for in, want := range map[string]string{
		root:                                  ".",
		root + "\n":                           ".\n",
		root + "/":                            ".",
		root + "/src/a.go:12: undefined: x":   "src/a.go:12: undefined: x",
		given + "/src/a.go":                   "src/a.go",
		"cd '" + given + "' && make":          "cd '.' && make",
		"see " + root + "0/other and " + root: "see " + root + "0/other and .",
		root + "-backup/x":                    root + "-backup/x",
		"nothing to hide":                     "nothing to hide",
	} {
		if got := l.HidePaths(in); got != want {
			t.Errorf("HidePaths(%q) = %q, want %q", in, got, want)
		}
	}
}
