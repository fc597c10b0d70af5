package tools_test

import (
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bonsai-run/bonsai/internal/tools"
)

// TestBash_CommittedTmpCannotRedirectOutput commits something else at
// .bonsai-tmp (a symlink out of the workspace, a symlink into the
// repository's own sources, a file): a long output is still saved in full,
// under a real directory whose workspace-relative path the notice names,
// and nothing is written through the link or over the repository's files.
func TestBash_CommittedTmpCannotRedirectOutput(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	cases := []struct {
		name  string
		plant func(t *testing.T, root, outside string)
	}{
		{"symlink outside", func(t *testing.T, root, outside string) {
			must(t, os.Symlink(outside, filepath.Join(root, ".bonsai-tmp")))
		}},
		{"symlink into the repository", func(t *testing.T, root, outside string) {
			must(t, os.Symlink("src", filepath.Join(root, ".bonsai-tmp")))
		}},
		{"dangling symlink", func(t *testing.T, root, outside string) {
			must(t, os.Symlink("missing", filepath.Join(root, ".bonsai-tmp")))
		}},
		{"file", func(t *testing.T, root, outside string) {
			must(t, os.WriteFile(filepath.Join(root, ".bonsai-tmp"), []byte("mine\n"), 0o644))
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			base := t.TempDir()
			root, outside := filepath.Join(base, "repo"), filepath.Join(base, "outside")
			must(t, os.MkdirAll(filepath.Join(root, "src"), 0o755))
			must(t, os.MkdirAll(outside, 0o755))
			must(t, os.WriteFile(filepath.Join(root, "src", "main.go"), []byte("package main\n"), 0o644))
			c.plant(t, root, outside)
			git(t, root, "init", "-q")
			git(t, root, "add", "-A")
			git(t, root, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "init")

			r := run(t, newSet(t, root, tools.SearchGo), "bash", `{"command":"seq 1 20000"}`)
			d, ok := r.Details.(tools.BashDetails)
			if r.IsError || !ok || !d.Truncated {
				t.Fatalf("result %+v: %s", r.Details, r.Text()[max(0, len(r.Text())-300):])
			}
			p := d.FullOutputPath
			if filepath.IsAbs(p) || strings.HasPrefix(p, ".bonsai-tmp/") || !strings.HasSuffix(r.Text(), "Full output: "+p+"]") {
				t.Fatalf("full output path %q, notice %q", p, r.Text()[len(r.Text())-100:])
			}
			dir := filepath.Join(root, filepath.Dir(p))
			if fi, err := os.Lstat(dir); err != nil || !fi.IsDir() {
				t.Fatalf("%s is not a real directory: %v", filepath.Dir(p), err)
			}
			full, err := os.ReadFile(filepath.Join(root, p))
			if err != nil {
				t.Fatal(err)
			}
			want, _ := exec.Command("seq", "1", "20000").Output()
			if string(full) != string(want) {
				t.Fatalf("full output file has %d bytes, want %d", len(full), len(want))
			}
			for _, d := range []string{outside, filepath.Join(root, "src")} {
				_ = filepath.WalkDir(d, func(q string, de fs.DirEntry, err error) error {
					if err == nil && !de.IsDir() && de.Name() != "main.go" {
						t.Errorf("written through the link: %s", q)
					}
					return nil
				})
			}
			if status := git(t, root, "status", "--porcelain"); status != "" {
				t.Fatalf("git status shows %q", status)
			}
		})
	}
}

func git(t *testing.T, dir string, args ...string) string {
	t.Helper()
	out, err := exec.Command("git", append([]string{"-C", dir}, args...)...).CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v %s", args, err, out)
	}
	return string(out)
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
