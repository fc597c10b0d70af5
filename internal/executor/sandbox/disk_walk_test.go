package sandbox

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
)

// TestTreeUsage: the disk guard's walk counts the blocks of the regular
// files below a directory, at any depth, as filepath.WalkDir finds them,
// and nothing behind a link: not a linked directory's files, not a
// linked file, not a root that is a link.
func TestTreeUsage(t *testing.T) {
	t.Parallel()
	base := t.TempDir()
	dir, outside := filepath.Join(base, "ws"), filepath.Join(base, "outside")
	deep := filepath.Join(dir, "a", "b", "c", "d")
	must(t, os.MkdirAll(deep, 0o755))
	must(t, os.MkdirAll(outside, 0o755))
	write := func(p string, size int) {
		must(t, os.WriteFile(p, bytes.Repeat([]byte("x"), size), 0o644))
	}
	write(filepath.Join(dir, "top"), 10_000)
	write(filepath.Join(deep, "deep"), 70_000)
	for i := range 600 { // more than one ReadDir batch
		write(filepath.Join(dir, "a", "f"+string(rune('a'+i%26))+string(rune('a'+i/26))), 100)
	}
	write(filepath.Join(outside, "big"), 4<<20)
	must(t, os.Symlink(outside, filepath.Join(dir, "a", "b", "dirlink")))
	must(t, os.Symlink(filepath.Join(outside, "big"), filepath.Join(dir, "filelink")))

	var want int64
	must(t, filepath.WalkDir(dir, func(_ string, e fs.DirEntry, err error) error {
		if err == nil && e.Type().IsRegular() {
			fi, err := e.Info()
			must(t, err)
			want += onDisk(fi)
		}
		return err
	}))
	got := treeUsage(dir)
	if got != want || got <= 0 {
		t.Errorf("treeUsage = %d, want %d (filepath.WalkDir's sum)", got, want)
	}
	if got >= 4<<20 {
		t.Errorf("treeUsage = %d counted the 4 MiB file behind a link", got)
	}
	root := filepath.Join(base, "rootlink")
	must(t, os.Symlink(outside, root))
	if n := treeUsage(root); n != 0 {
		t.Errorf("treeUsage of a root that is a link = %d, want 0", n)
	}
}
