package sandbox

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bonsai-run/bonsai/internal/executor"
)

// marker starts the name of every file a disguised writer creates.
const marker = "bonsai-marker"

// writer is a command the policy's text rules once took for a reader
// (issue 25, finding 3), or a plain writer: each writes the worktree or
// the clone's git metadata, or runs a committed program that does.
type writer struct {
	name, script string
	needs        string // a program that must be on the host's PATH; "" for none
}

func writers() []writer {
	m := marker + "-"
	return []writer{
		{"sed w flag", "sed -n 's/readme/x/w " + m + "sedw' README", ""},
		{"sed w command", "sed -n 'w " + m + "sedw2' README", ""},
		{"sed e command", "sed -n '1e touch " + m + "sede' README", ""},
		{"rg --pre", "rg --pre ./tool.sh readme .", "rg"},
		{"PATH=. ls", "PATH=.:$PATH ls", ""},
		{"BASH_ENV", "BASH_ENV=./tool.sh bash -c true", ""},
		{"git diff --output", "git diff --output=" + m + "diff HEAD~1", ""},
		{"git log --output", "git log -1 --output=" + m + "log", ""},
		{"git show --output", "git show --output=" + m + "show HEAD", ""},
		{"git grep -O", "git grep --open-files-in-pager='touch " + m + "grep; :' readme", ""},
		{"GIT_EXTERNAL_DIFF", "GIT_EXTERNAL_DIFF=./tool.sh git diff HEAD~1 HEAD", ""},
		{"LESSOPEN", "LESSOPEN='|touch " + m + "lessopen; cat %s' less README", "less"},
		{"tree -o", "tree -o " + m + "tree", "tree"},
		{"find -fprint", "find . -maxdepth 0 -fprint " + m + "find", ""},
		{"find -exec", "find . -maxdepth 0 -exec touch " + m + "findexec ';'", ""},
		{"/dev/fd/../..", "echo x > /dev/fd/../../..$PWD/" + m + "devfd", ""},
		{"test -v subscript", "declare -a a; test -v 'a[$(touch " + m + "testv)]'", ""},
		{"printf -v subscript", "declare -a a; printf -v 'a[$(touch " + m + "printfv)]' x", ""},
		{"awk print >", "awk 'BEGIN { print 1 > \"" + m + "awk\" }'", ""},
		{"perl open", "perl -e 'open(F, \">" + m + "perl\")'", "perl"},
		{"python3 open", "python3 -c \"open('" + m + "py', 'w')\"", "python3"},
		{"xargs touch", "echo " + m + "xargs | xargs touch", ""},
		{"env touch", "env touch " + m + "env", ""},
		{"touch", "touch " + m + "touch", ""},
		{"cp", "cp README " + m + "cp", ""},
		{"tee", "tee " + m + "tee < /dev/null", ""},
		{"sort -o", "sort -o " + m + "sort README", ""},
		{"dd of=", "dd if=/dev/zero of=" + m + "dd count=1 2>/dev/null", ""},
		{"mkdir", "mkdir " + m + "dir", ""},
		{"ln -s", "ln -s / " + m + "ln", ""},
		{"mv", "mv README README.moved", ""},
		{"rm", "rm README", ""},
		{"chmod", "chmod 600 README", ""},
		{"truncate", "truncate -s 0 README", ""},
		{"git update-ref", "git update-ref refs/remotes/origin/main HEAD~1", ""},
		{"git branch", "git branch evil", ""},
		{"git tag", "git tag evil", ""},
		{"git commit", "git commit -q --allow-empty -m evil", ""},
		{"git hash-object -w", "echo new | git hash-object -w --stdin", ""},
		{"git reset --soft", "git reset -q --soft HEAD~1", ""},
		{"git update-index", "git update-index --chmod=+x README", ""},
		{"git notes", "git notes add -m evil", ""},
		{"the build cache", "touch \"$GOCACHE/" + m + "gocache\"", ""},
		{"the npm cache", "touch \"$npm_config_cache/" + m + "npm\"", ""},
	}
}

// roOptions are the options of the executors TestReadOnly opens: the
// host's layout with toolchain caches under it, so that a write to them
// shows as a marker.
func roOptions(h host) Options {
	return Options{Home: h.home, DataDir: h.data, GitDir: h.gitDir, Caches: map[string]string{
		"GOCACHE": filepath.Join(h.base, "caches", "gocache"), "npm_config_cache": filepath.Join(h.base, "caches", "npm")}}
}

// gitIdentity lets commits inside the sandbox name someone.
var gitIdentity = []string{"GIT_AUTHOR_NAME=a", "GIT_AUTHOR_EMAIL=a@e", "GIT_COMMITTER_NAME=a", "GIT_COMMITTER_EMAIL=a@e"}

// readOnlyHost is newHost with what the writers run committed in the
// worktree: a tool.sh that leaves a marker, an ./ls that runs it, and a
// second commit for the diffs.
func readOnlyHost(t *testing.T) host {
	h := newHost(t)
	tool := "#!/bin/sh\ntouch \"$PWD/" + marker + "-tool-$$\"\ncat \"$@\" 2>/dev/null\n"
	must(t, os.WriteFile(filepath.Join(h.root, "README"), []byte("readme\nmore\n"), 0o644))
	must(t, os.WriteFile(filepath.Join(h.root, "tool.sh"), []byte(tool), 0o755))
	must(t, os.WriteFile(filepath.Join(h.root, "ls"), []byte("#!/bin/sh\nexec ./tool.sh\n"), 0o755))
	git(t, h.root, "add", ".")
	git(t, h.root, "commit", "-q", "-m", "second")
	return h
}

// snapshot hashes every file, link and directory (name, mode, content)
// under the worktree and the clone's .git, so that any write shows.
func snapshot(t *testing.T, h host) string {
	t.Helper()
	sum := sha256.New()
	for _, dir := range []string{h.root, h.gitDir} {
		err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			fi, err := d.Info()
			if err != nil {
				return err
			}
			sum.Write([]byte(p + "\x00" + fi.Mode().String() + "\x00"))
			switch {
			case fi.Mode().IsRegular():
				b, err := os.ReadFile(p)
				if err != nil {
					return err
				}
				sum.Write(b)
			case fi.Mode()&fs.ModeSymlink != 0:
				l, _ := os.Readlink(p)
				sum.Write([]byte(l))
			}
			sum.Write([]byte{0})
			return nil
		})
		must(t, err)
	}
	return hex.EncodeToString(sum.Sum(nil))
}

// markers lists the marker files anywhere under the host's layout.
func markers(h host) []string {
	var found []string
	_ = filepath.WalkDir(h.base, func(p string, d fs.DirEntry, err error) error {
		if err == nil && strings.HasPrefix(d.Name(), marker) {
			found = append(found, p)
		}
		return nil
	})
	return found
}

// runWriters runs every writer in ex (with RunOptions.ReadOnly set to
// ro) and reports, for each, whether it changed the worktree, the git
// metadata or left a marker anywhere.
func runWriters(t *testing.T, h host, ex executor.Executor, ro bool) map[string]bool {
	changed := map[string]bool{}
	head := gitOut(t, h.root, "rev-parse", "HEAD")
	for _, w := range writers() {
		if w.needs != "" {
			if _, err := exec.LookPath(w.needs); err != nil {
				continue
			}
		}
		before := snapshot(t, h)
		var out bytes.Buffer
		_, err := ex.Shell(context.Background(), w.script, executor.RunOptions{Output: &out, Env: gitIdentity, ReadOnly: ro})
		must(t, err)
		if snapshot(t, h) != before || len(markers(h)) > 0 {
			changed[w.name] = true
			t.Logf("%s changed the host (output %q, markers %v)", w.name, out.String(), markers(h))
		}
		// The next writer starts from the same tree.
		git(t, h.root, "reset", "-q", "--hard", head)
		git(t, h.root, "clean", "-q", "-fdx")
		for _, m := range markers(h) {
			os.RemoveAll(m)
		}
	}
	return changed
}

// TestReadOnly runs each disguised writer and code runner of issue 25
// (finding 3) three ways: in a writable sandbox, where it must write (or
// the case proves nothing); in a sandbox opened read-only (a read-only
// project); and as a RunOptions.ReadOnly command of a writable sandbox
// (a command the policy allowed because it reads). The last two must
// leave the worktree, the clone's .git and everything under the host's
// layout unchanged.
func TestReadOnly(t *testing.T) {
	requireBwrap(t)
	t.Run("writable", func(t *testing.T) {
		t.Parallel()
		h := readOnlyHost(t)
		changed := runWriters(t, h, open(t, h.root, roOptions(h)), false)
		for _, w := range writers() {
			if _, err := exec.LookPath(w.needs); w.needs == "" || err == nil {
				if !changed[w.name] {
					t.Errorf("%s wrote nothing in a writable sandbox: the case proves nothing", w.name)
				}
			}
		}
	})
	for _, c := range []struct {
		name     string
		readOnly bool // Options.ReadOnly
		perCmd   bool
	}{{"read-only executor", true, false}, {"read-only command", false, false}, {"read-only command, one bwrap per command", false, true}} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			h := readOnlyHost(t)
			o := roOptions(h)
			o.ReadOnly, o.PerCommand = c.readOnly, c.perCmd
			ex := open(t, h.root, o)
			for name := range runWriters(t, h, ex, !c.readOnly) {
				t.Errorf("%s wrote in a read-only sandbox", name)
			}
			// The writable view still writes; the read-only one still reads.
			code, out := shell(t, ex, "cat README && git log --oneline | wc -l && touch after")
			_, err := os.Stat(filepath.Join(h.root, "after"))
			if c.readOnly != (err != nil) || !strings.Contains(out, "readme") || !strings.Contains(out, "2") {
				t.Errorf("a plain command after the read-only ones: exit %d, wrote %v, output %q", code, err == nil, out)
			}
		})
	}
}

func gitOut(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	b, err := cmd.Output()
	must(t, err)
	return strings.TrimSpace(string(b))
}

// TestReadOnlyGo: go vet works as a read-only command, with a build
// cache of its own, while the project's stays untouched. The package is a
// library without imports: go vet opens its build cache all the same (a
// read-only one fails it at once), without compiling the runtime a main
// package links (40 s of CPU into an empty cache).
func TestReadOnlyGo(t *testing.T) {
	requireBwrap(t)
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go")
	}
	root := t.TempDir()
	cache := filepath.Join(t.TempDir(), "gocache")
	ex := open(t, root, Options{Caches: map[string]string{"GOCACHE": cache}})
	must(t, os.WriteFile(filepath.Join(root, "go.mod"), []byte("module tiny\n\ngo 1.21\n"), 0o644))
	must(t, os.WriteFile(filepath.Join(root, "tiny.go"), []byte("package tiny\n\n// Add adds.\nfunc Add(a, b int) int { return a + b }\n"), 0o644))
	var out bytes.Buffer
	x, err := ex.Shell(context.Background(), "go env GOCACHE && go vet . && echo vetted", executor.RunOptions{Output: &out, ReadOnly: true,
		Env: []string{"GOTOOLCHAIN=local", "GOPROXY=off", "GOFLAGS=-mod=mod"}})
	must(t, err)
	if x.Code != 0 || !strings.Contains(out.String(), roGoCache) || !strings.Contains(out.String(), "vetted") {
		t.Fatalf("exit %d: %s", x.Code, out.String())
	}
	if ents, _ := os.ReadDir(cache); len(ents) != 0 {
		t.Fatalf("a read-only command wrote the project's build cache: %v", ents)
	}
}
