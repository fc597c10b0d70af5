package beneath

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"syscall"
	"testing"
)

// impls are the ways of resolving paths this system has: the default
// (openat2 on Linux) and os.Root, the fallback.
func impls() map[string]fsys {
	return map[string]fsys{"default": sys, "os.Root": rootFS{}}
}

// tree is a root with the links an agent plants, beside an outside
// directory holding a host file.
type tree struct{ root, outside, secret string }

func newTree(t *testing.T) tree {
	t.Helper()
	d := t.TempDir()
	tr := tree{root: filepath.Join(d, "root"), outside: filepath.Join(d, "outside")}
	tr.secret = filepath.Join(tr.outside, "secret")
	must(t, os.MkdirAll(filepath.Join(tr.root, "real", "sub"), 0o755))
	must(t, os.MkdirAll(tr.outside, 0o755))
	must(t, os.WriteFile(tr.secret, []byte("host file\n"), 0o644))
	must(t, os.WriteFile(filepath.Join(tr.root, "real", "plain.txt"), []byte("plain\n"), 0o644))
	for link, target := range map[string]string{
		"filelink":        tr.secret,          // a file link to a host file
		"dirlink":         tr.outside,         // a directory link, used in the middle of a path
		"real/up":         "../../outside",    // a relative link climbing out
		"abslink":         "/etc",             // an absolute link
		"passwd":          "/etc/passwd",      // a link to /etc/passwd
		"real/inner":      "plain.txt",        // a link that stays inside
		"real/sub/dangle": "../../../nowhere", // a dangling link
	} {
		must(t, os.Symlink(target, filepath.Join(tr.root, link)))
	}
	return tr
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// unchanged fails the test when the host file was written or anything
// appeared beside it.
func (tr tree) unchanged(t *testing.T) {
	t.Helper()
	if b, err := os.ReadFile(tr.secret); err != nil || string(b) != "host file\n" {
		t.Errorf("the host file is now %q, %v", b, err)
	}
	ents, _ := os.ReadDir(tr.outside)
	if len(ents) != 1 {
		t.Errorf("the outside directory holds %d entries, want the host file only", len(ents))
	}
}

func TestLinksAreRefused(t *testing.T) {
	for name, s := range impls() {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			for _, rel := range []string{"filelink", "dirlink/secret", "real/up/secret", "abslink/passwd", "passwd",
				"real/inner", "../outside/secret", "real/../../outside/secret", "/etc/passwd"} {
				tr := newTree(t)
				if _, err := readFile(s, tr.root, rel, 1<<20); !errors.Is(err, ErrLink) {
					t.Errorf("read %s: %v, want a refused link", rel, err)
				}
				tr.unchanged(t)
			}
			for _, rel := range []string{"dirlink/new", "real/up/new", "abslink/bonsai-test", "../outside/new",
				"real/../../outside/new", "/tmp/new", "real/sub/dangle/new", "dirlink/secret"} {
				tr := newTree(t)
				if err := writeFile(s, tr.root, rel, []byte("planted\n"), 0o600); !errors.Is(err, ErrLink) {
					t.Errorf("write %s: %v, want a refused link", rel, err)
				}
				if err := mkdirAll(s, tr.root, rel+"/d", 0o700); !errors.Is(err, ErrLink) {
					t.Errorf("mkdir %s: %v, want a refused link", rel, err)
				}
				tr.unchanged(t)
			}
		})
	}
}

// A link at the written name is replaced by the new file, never written
// through.
func TestWriteReplacesALink(t *testing.T) {
	for name, s := range impls() {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			for _, rel := range []string{"filelink", "passwd", "real/inner", "real/sub/dangle"} {
				tr := newTree(t)
				must(t, writeFile(s, tr.root, rel, []byte("prompt\n"), 0o600))
				fi, err := os.Lstat(filepath.Join(tr.root, rel))
				if err != nil || !fi.Mode().IsRegular() {
					t.Errorf("%s after the write: %v, %v; want a regular file", rel, fi, err)
				}
				if b, err := readFile(s, tr.root, rel, 100); err != nil || string(b) != "prompt\n" {
					t.Errorf("read %s back: %q, %v", rel, b, err)
				}
				tr.unchanged(t)
				if b, _ := os.ReadFile(filepath.Join(tr.root, "real", "plain.txt")); string(b) != "plain\n" {
					t.Errorf("the link's target inside the root was written: %q", b)
				}
			}
		})
	}
}

func TestReadWriteMkdir(t *testing.T) {
	for name, s := range impls() {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			tr := newTree(t)
			must(t, mkdirAll(s, tr.root, "a/b/c", 0o700))
			must(t, mkdirAll(s, tr.root, "a/b/c", 0o700)) // again: exists
			must(t, writeFile(s, tr.root, "a/b/c/f.json", []byte(`{"x":1}`), 0o600))
			must(t, writeFile(s, tr.root, "a/b/c/f.json", []byte(`{"x":2}`), 0o600))
			b, err := readFile(s, tr.root, "a/b/c/f.json", 100)
			if err != nil || string(b) != `{"x":2}` {
				t.Fatalf("read back %q, %v", b, err)
			}
			if fi, _ := os.Stat(filepath.Join(tr.root, "a/b/c/f.json")); fi.Mode().Perm() != 0o600 {
				t.Errorf("mode %v, want 0600", fi.Mode())
			}
			ents, _ := os.ReadDir(filepath.Join(tr.root, "a/b/c"))
			if len(ents) != 1 {
				t.Errorf("%d entries: a temporary file was left", len(ents))
			}
			if _, err := readFile(s, tr.root, "a/b/c/f.json", 3); err == nil {
				t.Errorf("a file over the limit was read")
			}
			if _, err := readFile(s, tr.root, "missing", 3); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("a missing file: %v, want not exist", err)
			}
			if err := writeFile(s, tr.root, "nodir/f", nil, 0o600); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("a write into a missing directory: %v, want not exist", err)
			}
			if err := mkdirAll(s, tr.root, "real/plain.txt/d", 0o700); err == nil {
				t.Errorf("a directory was made below a file")
			}
			if _, err := readFile(s, tr.root, "real", 100); err == nil {
				t.Errorf("a directory was read as a file")
			}
		})
	}
}

// A FIFO the agent left is refused without blocking the reader.
func TestFIFOIsNotRead(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no FIFOs")
	}
	for name, s := range impls() {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			tr := newTree(t)
			must(t, syscall.Mkfifo(filepath.Join(tr.root, "fifo"), 0o600))
			if _, err := readFile(s, tr.root, "fifo", 100); err == nil {
				t.Errorf("a FIFO was read")
			}
		})
	}
}
