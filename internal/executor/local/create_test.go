package local_test

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/bonsai-run/bonsai/internal/executor"
	"github.com/bonsai-run/bonsai/internal/executor/local"
)

// TestLocal_CreateFileRefusesLinks checks that CreateFile creates missing
// real directories, and neither follows a symlinked directory (inside the
// root or not) nor replaces or follows an existing file or link.
func TestLocal_CreateFileRefusesLinks(t *testing.T) {
	t.Parallel()
	base := t.TempDir()
	root, outside := filepath.Join(base, "root"), filepath.Join(base, "outside")
	for _, d := range []string{filepath.Join(root, "src"), outside} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for link, to := range map[string]string{"in": "src", "out": outside, "file-link": "src/x"} {
		if err := os.Symlink(to, filepath.Join(root, link)); err != nil {
			t.Fatal(err)
		}
	}
	l, err := local.New(root, local.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	ctx := context.Background()
	if err := l.CreateFile(ctx, "a/b/c.txt", []byte("c")); err != nil {
		t.Fatalf("create a/b/c.txt: %v", err)
	}
	if b, err := os.ReadFile(filepath.Join(root, "a", "b", "c.txt")); err != nil || string(b) != "c" {
		t.Fatalf("a/b/c.txt = %q, %v", b, err)
	}
	for p, want := range map[string]error{
		"in/x.txt":   executor.ErrLink,
		"out/x.txt":  executor.ErrLink,
		"in":         fs.ErrExist,
		"file-link":  fs.ErrExist,
		"a/b/c.txt":  fs.ErrExist,
		"../x.txt":   executor.ErrOutsideRoot,
		"a/b/c.txt/": fs.ErrExist,
	} {
		if err := l.CreateFile(ctx, p, []byte("x")); !errors.Is(err, want) {
			t.Errorf("create %s: %v, want %v", p, err, want)
		}
	}
	for _, p := range []string{filepath.Join(root, "src", "x.txt"), filepath.Join(root, "src", "x"), filepath.Join(outside, "x.txt")} {
		if _, err := os.Lstat(p); err == nil {
			t.Errorf("%s was written through a link", p)
		}
	}
}
