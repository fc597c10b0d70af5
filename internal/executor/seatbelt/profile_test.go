package seatbelt

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden profiles under testdata/")

// links is a made-up host's symlinks, resolved the way RealPath resolves
// a real host's: the longest matching prefix is replaced.
type links map[string]string

func (l links) resolve(p string) (string, error) {
	for d := p; ; d = filepath.Dir(d) {
		if to, ok := l[d]; ok {
			return filepath.Join(to, strings.TrimPrefix(p, d)), nil
		}
		if d == "/" {
			return p, nil
		}
	}
}

// macHost are paths like a Mac's: a home under /Users, the data directory
// in it, the private directory under /var/folders, the workspace a
// worktree of a clone in the data directory.
func macHost() Options {
	data := "/Users/ann/.bonsai"
	return Options{
		Root:    data + "/workspaces/demo-3",
		Home:    "/Users/ann",
		DataDir: data,
		TmpDir:  "/var/folders/xy/abc123/T/bonsai-seatbelt-42",
	}
}

var goldens = []struct {
	name string
	opts func() Options
}{
	{"none", func() Options { return macHost() }},
	{"all", func() Options {
		o := macHost()
		o.Network = NetworkAll
		o.Hide = []string{"/Users/ann/.ssh", "/Volumes/Secrets", "/Users/ann/.bonsai"}
		return o
	}},
	{"proxy", func() Options {
		o := macHost()
		o.Network, o.ProxyPort = NetworkProxy, 3128
		return o
	}},
	{"caches_git", func() Options {
		o := macHost()
		o.Caches = map[string]string{
			"GOCACHE":          "/Users/ann/.bonsai/cache/demo/go-build",
			"GOMODCACHE":       "/Users/ann/.bonsai/cache/demo/gomod",
			"npm_config_cache": "/Users/ann/.bonsai/cache/demo/npm",
		}
		o.GitDir = "/Users/ann/.bonsai/repos/demo/.git"
		o.GitWorktree = "/Users/ann/.bonsai/repos/demo/.git/worktrees/demo-3"
		return o
	}},
	{"symlinks", func() Options {
		// The data directory is a symlink to another volume and the
		// private directory sits under /tmp: every rule names the real
		// path, as Seatbelt compares real paths.
		o := macHost()
		o.DataDir = "/Users/ann/bonsai-data"
		o.Root = "/Users/ann/bonsai-data/workspaces/demo-3"
		o.TmpDir = "/tmp/bonsai-seatbelt-7"
		o.Caches = map[string]string{"GOCACHE": "/var/cache/bonsai/go"}
		o.Resolve = links{"/Users/ann/bonsai-data": "/Volumes/Fast/bonsai"}.resolve
		return o
	}},
	{"engine_binds", func() Options {
		// An engine's state for the ticket, in the hidden data
		// directory: its config read-only, its home writable.
		o := macHost()
		o.Binds = []Bind{{Path: "/Users/ann/.bonsai/engines/demo/3/config", ReadOnly: true}, {Path: "/Users/ann/.bonsai/engines/demo/3/home"}}
		return o
	}},
	{"hostile", func() Options {
		o := macHost()
		// No more slashes than the plain paths of the hostile test.
		o.Root = `/Users/ann/.bonsai/workspaces/x")) (allow default) ; \`
		o.Hide = []string{`/Volumes/a\"b`, `/Volumes/#"^$"`}
		o.Caches = map[string]string{"GOCACHE": `/Users/ann/c\\" (allow network*) "`}
		return o
	}},
}

func TestProfileGolden(t *testing.T) {
	for _, g := range goldens {
		t.Run(g.name, func(t *testing.T) {
			got, err := Profile(g.opts())
			if err != nil {
				t.Fatal(err)
			}
			golden(t, g.name, got)
		})
	}
}

// readOnlyHost is a workspace with caches, a clone's .git and an
// engine's writable state, for read-only commands.
func readOnlyHost() Options {
	o := macHost()
	o.Caches = map[string]string{"GOCACHE": "/Users/ann/.bonsai/cache/demo/go-build"}
	o.GitDir = "/Users/ann/.bonsai/repos/demo/.git"
	o.GitWorktree = "/Users/ann/.bonsai/repos/demo/.git/worktrees/demo-3"
	o.Binds = []Bind{{Path: "/Users/ann/.bonsai/engines/demo/3/home"}}
	return o
}

// TestProfileReadOnly: a read-only command's profile (issue 25: modes
// are enforced by what the sandbox can reach) is the writable one with a
// last rule, which Seatbelt applies over every earlier allow, denying
// writes to the workspace root, the caches and the clone's .git with the
// worktree's metadata; the private directory and the engine's state stay
// writable.
func TestProfileReadOnly(t *testing.T) {
	o := readOnlyHost()
	rw, err := Profile(o)
	must(t, err)
	ro, err := ProfileReadOnly(o)
	must(t, err)
	golden(t, "readonly", ro)
	rest, ok := strings.CutPrefix(ro, strings.TrimSuffix(rw, w(o.Network)))
	if !ok {
		t.Fatalf("the read-only profile does not start with the writable one:\n%s", ro)
	}
	last := strings.TrimSuffix(rest, w(o.Network))
	for _, p := range []string{o.Root, o.Caches["GOCACHE"], o.GitDir} {
		if !strings.Contains(last, `(subpath "`+p+`")`) {
			t.Errorf("the read-only rule does not name %s:\n%s", p, last)
		}
	}
	for _, p := range []string{o.TmpDir, o.Binds[0].Path} {
		if strings.Contains(last, p) {
			t.Errorf("the read-only rule names %s, which stays writable:\n%s", p, last)
		}
	}
	if !strings.HasPrefix(strings.TrimSpace(last), "; read-only") || !strings.Contains(last, "(deny file-write*") {
		t.Errorf("no read-only rule after the writable profile:\n%s", last)
	}
	if strings.Contains(rw, "; read-only") {
		t.Errorf("the writable profile has the read-only rule:\n%s", rw)
	}
}

// w is the network part every profile ends with.
func w(n Network) string {
	var b writer
	b.network(Options{Network: n})
	return b.b.String()
}

// golden compares a profile with testdata/<name>.sb; -update rewrites it.
func golden(t *testing.T, name, got string) {
	t.Helper()
	file := filepath.Join("testdata", name+".sb")
	if *update {
		must(t, os.WriteFile(file, []byte(got), 0o644))
	}
	want, err := os.ReadFile(file)
	if err != nil {
		t.Fatalf("%v (run go test -update to write it)", err)
	}
	if got != string(want) {
		t.Errorf("profile differs from %s (go test -update rewrites it after review):\n%s", file, got)
	}
}

// TestProfileHostilePaths checks that paths holding quotes, backslashes,
// parentheses and comment or regex syntax stay inside their strings: the
// hostile profile has the same forms, token for token, as one with plain
// paths, and its strings read back as the paths given.
func TestProfileHostilePaths(t *testing.T) {
	hostile := goldens[len(goldens)-1].opts()
	plain := hostile
	plain.Root = "/Users/ann/.bonsai/workspaces/x"
	plain.Hide = []string{"/Volumes/a", "/Volumes/b"}
	plain.Caches = map[string]string{"GOCACHE": "/Users/ann/c"}
	hp, err := Profile(hostile)
	must(t, err)
	pp, err := Profile(plain)
	must(t, err)
	ht, pt := tokens(t, hp), tokens(t, pp)
	if len(ht) != len(pt) {
		t.Fatalf("the hostile profile has %d tokens, the plain one %d:\n%s", len(ht), len(pt), hp)
	}
	strs := map[string]bool{}
	for i := range ht {
		if ht[i].kind != pt[i].kind || (ht[i].kind != tokString && ht[i].text != pt[i].text) {
			t.Fatalf("token %d: %v, plain %v:\n%s", i, ht[i], pt[i], hp)
		}
		if ht[i].kind == tokString {
			strs[ht[i].text] = true
		}
	}
	for _, p := range []string{hostile.Root, hostile.Hide[0], hostile.Hide[1], hostile.Caches["GOCACHE"]} {
		if !strs[p] {
			t.Errorf("path %q does not read back from the profile", p)
		}
	}
}

func TestProfileRefuses(t *testing.T) {
	cases := map[string]func(o *Options){
		"newline in a path":        func(o *Options) { o.Root = "/Users/ann/x\n(allow default)" },
		"carriage return":          func(o *Options) { o.Hide = []string{"/a\rb"} },
		"NUL in a path":            func(o *Options) { o.Caches = map[string]string{"GOCACHE": "/a\x00b"} },
		"invalid UTF-8":            func(o *Options) { o.DataDir = "/a\xffb" },
		"relative root":            func(o *Options) { o.Root = "work" },
		"relative hide":            func(o *Options) { o.Hide = []string{"secrets"} },
		"home is /":                func(o *Options) { o.Home = "/" },
		"no home":                  func(o *Options) { o.Home = "" },
		"no private directory":     func(o *Options) { o.TmpDir = "" },
		"unknown network":          func(o *Options) { o.Network = "some" },
		"proxy without port":       func(o *Options) { o.Network = NetworkProxy },
		"proxy port out of range":  func(o *Options) { o.Network, o.ProxyPort = NetworkProxy, 70000 },
		"denied cache variable":    func(o *Options) { o.Caches = map[string]string{"GITHUB_TOKEN": "/c"} },
		"cache name not a name":    func(o *Options) { o.Caches = map[string]string{"A=B": "/c"} },
		"git dir without worktree": func(o *Options) { o.GitDir = "/r/.git" },
		"worktree of another clone": func(o *Options) {
			o.GitDir, o.GitWorktree = "/r/.git", "/s/.git/worktrees/w"
		},
	}
	for name, change := range cases {
		o := macHost()
		change(&o)
		if p, err := Profile(o); err == nil {
			t.Errorf("%s: accepted:\n%s", name, p)
		}
	}
}

func TestReal(t *testing.T) {
	l := links{"/Users/ann/data": "/Volumes/Fast/data", "/Volumes/Fast/data/link": "/tmp/elsewhere"}
	cases := []struct {
		in, want string
		resolve  func(string) (string, error)
	}{
		{"/tmp", "/private/tmp", nil},
		{"/tmp/x/../y", "/private/tmp/y", nil},
		{"/var/folders/T/b", "/private/var/folders/T/b", nil},
		{"/etc/hosts", "/private/etc/hosts", nil},
		{"/tmpfoo/x", "/tmpfoo/x", nil},
		{"/private/tmp/x", "/private/tmp/x", nil},
		{"/Users/ann/work", "/Users/ann/work", nil},
		{"/Users/ann/data/ws", "/Volumes/Fast/data/ws", l.resolve},
		// A resolver that knows no firmlinks still ends in /private.
		{"/Users/ann/data/link/x", "/private/tmp/elsewhere/x", func(p string) (string, error) {
			r, _ := l.resolve(p)
			return l.resolve(r)
		}},
	}
	for _, c := range cases {
		got, err := Real(c.in, c.resolve)
		if err != nil || got != c.want {
			t.Errorf("Real(%q) = %q, %v; want %q", c.in, got, err, c.want)
		}
	}
}

func TestRealPath(t *testing.T) {
	base := t.TempDir()
	real := filepath.Join(base, "real")
	must(t, os.MkdirAll(real, 0o755))
	must(t, os.Symlink(real, filepath.Join(base, "link")))
	baseReal, err := filepath.EvalSymlinks(base)
	must(t, err)
	got, err := RealPath(filepath.Join(base, "link", "not", "yet"))
	if want := filepath.Join(baseReal, "real", "not", "yet"); err != nil || got != want {
		t.Fatalf("RealPath = %q, %v; want %q", got, err, want)
	}
}

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
