package local_test

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
)

// TestLocal_WriteRaceLeavesNoTemp writes into a directory while another
// goroutine keeps swapping it with a symlink to a sibling directory: a
// write may fail, but it must never leave its temporary file behind.
func TestLocal_WriteRaceLeavesNoTemp(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	for _, d := range []string{"d", "other"} {
		if err := os.Mkdir(filepath.Join(root, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	ex := openLocal(t, root)
	d, parked := filepath.Join(root, "d"), filepath.Join(root, "d.parked")
	var stop atomic.Bool
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for !stop.Load() {
			// d becomes a symlink to other, then the real directory again.
			if os.Rename(d, parked) != nil {
				continue
			}
			_ = os.Symlink("other", d)
			if fi, err := os.Lstat(d); err == nil && fi.Mode()&fs.ModeSymlink != 0 {
				_ = os.Remove(d)
			}
			_ = os.Rename(parked, d)
		}
	}()
	ctx := context.Background()
	for range 1500 {
		_ = ex.WriteFile(ctx, "d/f.txt", []byte("content\n"))
	}
	stop.Store(true)
	wg.Wait()
	err := filepath.WalkDir(root, func(p string, de fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if strings.Contains(de.Name(), ".bonsai-") && strings.HasSuffix(de.Name(), ".tmp") {
			rel, _ := filepath.Rel(root, p)
			t.Errorf("temporary file left behind: %s", rel)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
