package sandbox

import (
	"os"
	"path/filepath"
	"testing"

	"golang.org/x/sys/unix"
)

// TestOpenBeneath_RefusesLinks: the walk's open of a directory below the
// tree refuses a link on any component of its path, as a directory the
// agent swapped for a link between the listing of its parent and its
// open would be, where a walk by path (filepath.WalkDir's os.ReadDir)
// lists the linked directory.
func TestOpenBeneath_RefusesLinks(t *testing.T) {
	t.Parallel()
	base := t.TempDir()
	top, outside := filepath.Join(base, "ws"), filepath.Join(base, "outside")
	must(t, os.MkdirAll(filepath.Join(top, "real", "sub"), 0o755))
	must(t, os.MkdirAll(filepath.Join(outside, "sub"), 0o755))
	must(t, os.Symlink(outside, filepath.Join(top, "swapped")))
	fd, err := unix.Open(top, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	must(t, err)
	defer unix.Close(fd)
	if d, err := openBeneath(fd, "real/sub"); err != nil {
		t.Errorf("real/sub: %v", err)
	} else {
		unix.Close(d)
	}
	for _, rel := range []string{"swapped", "swapped/sub"} {
		if d, err := openBeneath(fd, rel); err == nil {
			unix.Close(d)
			t.Errorf("%s, through a link out of the tree, was opened", rel)
		}
	}
	if _, err := os.ReadDir(filepath.Join(top, "swapped", "sub")); err != nil {
		t.Fatalf("a walk by path: %v (the link the test relies on did not work)", err)
	}
}
