package local_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bonsai-run/bonsai/internal/executor/executortest"
	"github.com/bonsai-run/bonsai/internal/executor/local"
)

// FuzzLocal_Paths asserts that no path, however built, lets a file
// operation read or change anything outside the root, and that errors never
// show the host location of the workspace.
func FuzzLocal_Paths(f *testing.F) {
	w := executortest.NewWorkspace(f)
	for _, p := range executortest.EscapingPaths(w) {
		f.Add(p)
	}
	for _, p := range []string{"a.txt", "sub/b.txt", "sub-link/b.txt", "./sub/../a.txt", "sub/up/root/a.txt", w.Root + "/a.txt", w.Root + "/../outside"} {
		f.Add(p)
	}
	l, err := local.New(w.Root, local.Options{})
	if err != nil {
		f.Fatal(err)
	}
	defer l.Close()
	realRoot := l.Root()
	hostBase := filepath.Dir(realRoot)
	ctx := context.Background()
	f.Fuzz(func(t *testing.T, p string) {
		if host, err := l.Resolve(p); err == nil {
			if host != realRoot && !strings.HasPrefix(host, realRoot+"/") {
				t.Fatalf("Resolve(%q) = %q escapes %q", p, host, realRoot)
			}
		}
		if rel, err := l.Rel(p); err == nil && (rel == ".." || strings.HasPrefix(rel, "../") || filepath.IsAbs(rel)) {
			t.Fatalf("Rel(%q) = %q leaves the root", p, rel)
		}
		_ = l.ReadFiles(ctx, p, []string{"secret.txt", filepath.Base(p)}, func(_ int, b []byte, _ error) {
			if string(b) == "outside secret\n" {
				t.Fatalf("ReadFiles(%q) read the outside file", p)
			}
		})
		if b, err := l.ReadFile(ctx, p); err == nil && string(b) == "outside secret\n" {
			t.Fatalf("ReadFile(%q) read the outside file", p)
		} else if err != nil && strings.Contains(err.Error(), hostBase) && !strings.Contains(p, hostBase) {
			t.Fatalf("ReadFile(%q) error shows a host path: %v", p, err)
		}
		if _, err := l.List(ctx, p); err != nil && strings.Contains(err.Error(), hostBase) && !strings.Contains(p, hostBase) {
			t.Fatalf("List(%q) error shows a host path: %v", p, err)
		}
		_ = l.WriteFile(ctx, filepath.Join(p, "fuzz.txt"), []byte("x"))
		ents, _ := os.ReadDir(w.Outside)
		b, _ := os.ReadFile(filepath.Join(w.Outside, "secret.txt"))
		if len(ents) != 1 || string(b) != "outside secret\n" {
			t.Fatalf("path %q changed the outside directory", p)
		}
	})
}
