// Package executortest is the contract test suite every executor.Executor
// implementation must pass.
package executortest

import (
	"bytes"
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/bonsai-run/bonsai/internal/executor"
)

// Open returns an Executor whose root is the host directory root.
type Open func(t *testing.T, root string) executor.Executor

// Run runs the contract suite. Each subtest builds a fresh workspace in a
// temporary directory, with a sibling "outside" directory that must never
// be read or written.
func Run(t *testing.T, open Open) {
	t.Run("ReadWrite", func(t *testing.T) { testReadWrite(t, open) })
	t.Run("WriteKeepsMode", func(t *testing.T) { testWriteKeepsMode(t, open) })
	t.Run("WriteThroughSymlink", func(t *testing.T) { testWriteThroughSymlink(t, open) })
	t.Run("NotFound", func(t *testing.T) { testNotFound(t, open) })
	t.Run("Escapes", func(t *testing.T) { testEscapes(t, open) })
	t.Run("AbsoluteInside", func(t *testing.T) { testAbsoluteInside(t, open) })
	t.Run("ListStat", func(t *testing.T) { testListStat(t, open) })
	t.Run("Exec", func(t *testing.T) { testExec(t, open) })
	t.Run("ShellMergesOutput", func(t *testing.T) { testShellMerge(t, open) })
	t.Run("ShellExitAndDir", func(t *testing.T) { testShellExitDir(t, open) })
	t.Run("TimeoutKillsGroup", func(t *testing.T) { testTimeout(t, open) })
	t.Run("CancelKeepsOutput", func(t *testing.T) { testCancel(t, open) })
	t.Run("SecretsNotInherited", func(t *testing.T) { testSecrets(t, open) })
}

// Workspace holds the host paths of one test workspace.
type Workspace struct {
	Root    string // the executor's root
	Outside string // a sibling directory holding secret.txt
}

// NewWorkspace creates a root with a few files and symlinks, some pointing
// outside: link-out (file), dir-out (directory), sub/up (to ..).
func NewWorkspace(t testing.TB) Workspace {
	t.Helper()
	base := t.TempDir()
	w := Workspace{Root: filepath.Join(base, "root"), Outside: filepath.Join(base, "outside")}
	must(t, os.MkdirAll(filepath.Join(w.Root, "sub", "deep"), 0o755))
	must(t, os.MkdirAll(w.Outside, 0o755))
	must(t, os.WriteFile(filepath.Join(w.Outside, "secret.txt"), []byte("outside secret\n"), 0o644))
	must(t, os.WriteFile(filepath.Join(w.Root, "a.txt"), []byte("alpha\n"), 0o644))
	must(t, os.WriteFile(filepath.Join(w.Root, ".hidden"), []byte("h\n"), 0o644))
	must(t, os.WriteFile(filepath.Join(w.Root, "sub", "b.txt"), []byte("beta\n"), 0o644))
	must(t, os.Symlink(filepath.Join(w.Outside, "secret.txt"), filepath.Join(w.Root, "link-out")))
	must(t, os.Symlink(w.Outside, filepath.Join(w.Root, "dir-out")))
	must(t, os.Symlink("../..", filepath.Join(w.Root, "sub", "up")))
	must(t, os.Symlink("sub", filepath.Join(w.Root, "sub-link")))
	must(t, os.Symlink("a.txt", filepath.Join(w.Root, "a-link")))
	return w
}

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func testReadWrite(t *testing.T, open Open) {
	w := NewWorkspace(t)
	ex := open(t, w.Root)
	ctx := context.Background()
	must(t, ex.WriteFile(ctx, "new/dir/c.txt", []byte("gamma")))
	got, err := ex.ReadFile(ctx, "new/dir/c.txt")
	must(t, err)
	if string(got) != "gamma" {
		t.Fatalf("read back %q", got)
	}
	must(t, ex.WriteFile(ctx, "new/dir/c.txt", []byte("delta")))
	got, _ = ex.ReadFile(ctx, "./new/../new/dir/c.txt")
	if string(got) != "delta" {
		t.Fatalf("after overwrite %q", got)
	}
	ents, err := ex.List(ctx, "new/dir")
	must(t, err)
	if len(ents) != 1 || ents[0].Name != "c.txt" {
		t.Fatalf("temporary files left behind: %+v", ents)
	}
	if err := ex.WriteFile(ctx, "sub", []byte("x")); err == nil {
		t.Fatal("writing over a directory succeeded")
	}
}

func testWriteKeepsMode(t *testing.T, open Open) {
	w := NewWorkspace(t)
	p := filepath.Join(w.Root, "run.sh")
	must(t, os.WriteFile(p, []byte("#!/bin/sh\n"), 0o755))
	must(t, os.Chmod(p, 0o755))
	ex := open(t, w.Root)
	must(t, ex.WriteFile(context.Background(), "run.sh", []byte("#!/bin/sh\necho\n")))
	fi, err := os.Stat(p)
	must(t, err)
	if fi.Mode().Perm() != 0o755 {
		t.Fatalf("mode %v, want 0755", fi.Mode().Perm())
	}
}

func testWriteThroughSymlink(t *testing.T, open Open) {
	w := NewWorkspace(t)
	ex := open(t, w.Root)
	must(t, ex.WriteFile(context.Background(), "a-link", []byte("via link\n")))
	fi, err := os.Lstat(filepath.Join(w.Root, "a-link"))
	must(t, err)
	if fi.Mode()&fs.ModeSymlink == 0 {
		t.Fatal("symlink was replaced by a file")
	}
	b, _ := os.ReadFile(filepath.Join(w.Root, "a.txt"))
	if string(b) != "via link\n" {
		t.Fatalf("target holds %q", b)
	}
}

func testNotFound(t *testing.T, open Open) {
	w := NewWorkspace(t)
	ex := open(t, w.Root)
	_, err := ex.ReadFile(context.Background(), "missing.txt")
	if !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("err = %v, want not exist", err)
	}
	if _, err := ex.Stat(context.Background(), "sub/missing"); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("stat err = %v, want not exist", err)
	}
	checkNoHostPath(t, w, err)
}

// EscapingPaths are inputs that must be refused by every operation.
func EscapingPaths(w Workspace) []string {
	return []string{
		"..", "../outside/secret.txt", "sub/../../outside/secret.txt", "a/../../x",
		filepath.Join(w.Outside, "secret.txt"), "/etc/passwd", "/",
		"link-out", "dir-out/secret.txt", "dir-out", "sub/up/outside/secret.txt", "sub/up",
		"~", "~/x", "~root/x", "a\x00b",
	}
}

func testEscapes(t *testing.T, open Open) {
	w := NewWorkspace(t)
	ex := open(t, w.Root)
	ctx := context.Background()
	for _, p := range EscapingPaths(w) {
		if _, err := ex.ReadFile(ctx, p); !refused(err) {
			t.Errorf("ReadFile(%q) err = %v", p, err)
		} else {
			checkNoHostPath(t, w, err)
		}
		lexicallyInside := strings.HasPrefix(p, "link-out") || strings.HasPrefix(p, "dir-out") || strings.HasPrefix(p, "sub/up")
		if _, err := ex.Rel(p); err == nil && !lexicallyInside {
			t.Errorf("Rel(%q) accepted", p)
		}
		if _, err := ex.Stat(ctx, p); !refused(err) {
			t.Errorf("Stat(%q) err = %v", p, err)
		}
		if _, err := ex.List(ctx, p); !refused(err) {
			t.Errorf("List(%q) err = %v", p, err)
		}
		if err := ex.WriteFile(ctx, p, []byte("pwned")); !refused(err) {
			t.Errorf("WriteFile(%q) err = %v", p, err)
		}
		if err := ex.WriteFile(ctx, p+"/new/f", []byte("pwned")); err == nil {
			t.Errorf("WriteFile(%q) succeeded", p+"/new/f")
		}
		if _, err := ex.Shell(ctx, "true", executor.RunOptions{Dir: p}); !refused(err) {
			t.Errorf("Shell in %q err = %v", p, err)
		}
	}
	b, err := os.ReadFile(filepath.Join(w.Outside, "secret.txt"))
	must(t, err)
	if string(b) != "outside secret\n" {
		t.Fatalf("outside file changed to %q", b)
	}
	ents, _ := os.ReadDir(w.Outside)
	if len(ents) != 1 {
		t.Fatalf("files created outside: %v", ents)
	}
}

func refused(err error) bool {
	return errors.Is(err, executor.ErrOutsideRoot) || errors.Is(err, executor.ErrNUL) || errors.Is(err, executor.ErrHome)
}

func checkNoHostPath(t *testing.T, w Workspace, err error) {
	t.Helper()
	if err == nil {
		return
	}
	if strings.Contains(err.Error(), filepath.Dir(w.Root)) {
		t.Errorf("error shows a host path: %v", err)
	}
}

func testAbsoluteInside(t *testing.T, open Open) {
	w := NewWorkspace(t)
	ex := open(t, w.Root)
	rel, err := ex.Rel(filepath.Join(w.Root, "sub", "..", "sub", "b.txt"))
	must(t, err)
	if rel != "sub/b.txt" {
		t.Fatalf("Rel = %q", rel)
	}
	if rel, _ := ex.Rel(""); rel != "." {
		t.Fatalf("Rel(\"\") = %q", rel)
	}
	b, err := ex.ReadFile(context.Background(), filepath.Join(w.Root, "sub", "b.txt"))
	must(t, err)
	if string(b) != "beta\n" {
		t.Fatalf("got %q", b)
	}
	_, err = ex.ReadFile(context.Background(), filepath.Join(w.Root, "sub", "nope"))
	checkNoHostPath(t, w, err)
}

func testListStat(t *testing.T, open Open) {
	w := NewWorkspace(t)
	ex := open(t, w.Root)
	ctx := context.Background()
	ents, err := ex.List(ctx, "")
	must(t, err)
	var names []string
	dirs := map[string]bool{}
	for _, e := range ents {
		names = append(names, e.Name)
		dirs[e.Name] = e.Dir
	}
	want := ".hidden a-link a.txt dir-out link-out sub sub-link"
	if strings.Join(names, " ") != want {
		t.Fatalf("List = %v, want %s", names, want)
	}
	if !dirs["sub"] || !dirs["sub-link"] || dirs["a.txt"] || dirs["dir-out"] {
		t.Fatalf("dir flags wrong: %v", dirs)
	}
	e, err := ex.Stat(ctx, "sub/b.txt")
	must(t, err)
	if e.Name != "b.txt" || e.Dir || e.Size != 5 {
		t.Fatalf("Stat = %+v", e)
	}
	if _, err := ex.List(ctx, "a.txt"); err == nil {
		t.Fatal("listing a file succeeded")
	}
}

func testExec(t *testing.T, open Open) {
	w := NewWorkspace(t)
	ex := open(t, w.Root)
	var out bytes.Buffer
	x, err := ex.Exec(context.Background(), []string{"echo", "$HOME", "a  b"}, executor.RunOptions{Output: &out})
	must(t, err)
	if x.Code != 0 || out.String() != "$HOME a  b\n" {
		t.Fatalf("exit %d output %q", x.Code, out.String())
	}
	out.Reset()
	_, err = ex.Exec(context.Background(), []string{"cat"}, executor.RunOptions{Output: &out, Stdin: strings.NewReader("in")})
	must(t, err)
	if out.String() != "in" {
		t.Fatalf("stdin: %q", out.String())
	}
	_, err = ex.Exec(context.Background(), []string{"no-such-program-bonsai"}, executor.RunOptions{})
	if !errors.Is(err, executor.ErrCommandNotFound) {
		t.Fatalf("err = %v, want ErrCommandNotFound", err)
	}
}

func testShellMerge(t *testing.T, open Open) {
	w := NewWorkspace(t)
	ex := open(t, w.Root)
	var out bytes.Buffer
	_, err := ex.Shell(context.Background(), "echo one; echo two >&2; echo three; echo four >&2", executor.RunOptions{Output: &out})
	must(t, err)
	if out.String() != "one\ntwo\nthree\nfour\n" {
		t.Fatalf("merged output %q", out.String())
	}
	var o, e bytes.Buffer
	_, err = ex.Shell(context.Background(), "echo one; echo two >&2", executor.RunOptions{Output: &o, Stderr: &e})
	must(t, err)
	if o.String() != "one\n" || e.String() != "two\n" {
		t.Fatalf("separate: %q %q", o.String(), e.String())
	}
}

func testShellExitDir(t *testing.T, open Open) {
	w := NewWorkspace(t)
	ex := open(t, w.Root)
	var out bytes.Buffer
	x, err := ex.Shell(context.Background(), "cat b.txt; exit 3", executor.RunOptions{Dir: "sub", Output: &out})
	must(t, err)
	if x.Code != 3 || out.String() != "beta\n" {
		t.Fatalf("exit %d output %q", x.Code, out.String())
	}
	x, err = ex.Shell(context.Background(), "kill -9 $$", executor.RunOptions{})
	must(t, err)
	if x.Code != 137 {
		t.Fatalf("killed shell exit %d, want 137", x.Code)
	}
}

func testTimeout(t *testing.T, open Open) {
	w := NewWorkspace(t)
	ex := open(t, w.Root)
	var out bytes.Buffer
	start := time.Now()
	x, err := ex.Shell(context.Background(), "echo started; (sleep 1.5; echo late > late.txt) & sleep 100; wait",
		executor.RunOptions{Output: &out, Timeout: 500 * time.Millisecond})
	must(t, err)
	if d := time.Since(start); d > 1500*time.Millisecond {
		t.Fatalf("timeout took %v", d)
	}
	if !x.TimedOut || out.String() != "started\n" {
		t.Fatalf("exit %+v output %q", x, out.String())
	}
	time.Sleep(1500 * time.Millisecond)
	if _, err := os.Stat(filepath.Join(w.Root, "late.txt")); err == nil {
		t.Fatal("a background child survived the timeout")
	}
}

func testCancel(t *testing.T, open Open) {
	w := NewWorkspace(t)
	ex := open(t, w.Root)
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	var out bytes.Buffer
	x, err := ex.Shell(ctx, "echo partial; sleep 100", executor.RunOptions{Output: &out})
	must(t, err)
	if !x.Canceled || out.String() != "partial\n" {
		t.Fatalf("exit %+v output %q", x, out.String())
	}
}

func testSecrets(t *testing.T, open Open) {
	t.Setenv("BONSAI_TEST_API_KEY", "sk-parent-secret")
	t.Setenv("GITHUB_TOKEN", "ghp-parent-secret")
	t.Setenv("AWS_ACCESS_KEY_ID", "aws-parent-secret")
	t.Setenv("LC_BONSAI", "kept")
	w := NewWorkspace(t)
	ex := open(t, w.Root)
	var out bytes.Buffer
	_, err := ex.Shell(context.Background(), "env", executor.RunOptions{Output: &out})
	must(t, err)
	if strings.Contains(out.String(), "parent-secret") {
		t.Fatalf("secret reached the command:\n%s", out.String())
	}
	if !strings.Contains(out.String(), "LC_BONSAI=kept") || !strings.Contains(out.String(), "PATH=") {
		t.Fatalf("allowed variables missing:\n%s", out.String())
	}
}
