package tools_test

import (
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"

	"github.com/bonsai-run/bonsai/internal/tools"
)

// ignoreTree holds ignore rules of every kind gitignore(5) describes, and
// files each rule should or should not hide.
var ignoreTree = map[string]string{
	".git/info/exclude":     "from-exclude.txt\n!keep-exclude.txt\n",
	".gitignore":            "# a comment\n\n*.log\n!keep.log\n/rooted.txt\nbuild/\ndocs/*.tmp\n**/cache\nvendor/**\n**/gen/**/*.pb\nsp\\ ace \ntrail   \n\\#hash\n\\!bang\n[ab]x.txt\nq?.txt\nnotdir/\n",
	"from-exclude.txt":      "x\n",
	"keep-exclude.txt":      "x\n",
	"a.log":                 "x\n",
	"keep.log":              "x\n",
	"rooted.txt":            "x\n",
	"sub/rooted.txt":        "x\n",
	"build/out":             "x\n",
	"sub/build/out":         "x\n",
	"build.txt":             "x\n",
	"docs/a.tmp":            "x\n",
	"docs/deep/b.tmp":       "x\n",
	"cache/x":               "x\n",
	"sub/cache/y":           "x\n",
	"vendor/m/z.go":         "x\n",
	"gen/p/q/r.pb":          "x\n",
	"gen/r.pb":              "x\n",
	"gen/r.go":              "x\n",
	"sp ace":                "x\n",
	"trail":                 "x\n",
	"#hash":                 "x\n",
	"!bang":                 "x\n",
	"ax.txt":                "x\n",
	"cx.txt":                "x\n",
	"q1.txt":                "x\n",
	"q12.txt":               "x\n",
	"notdir":                "x\n",
	"sub/notdir/in":         "x\n",
	"sub/.gitignore":        "*.txt\n!important.txt\n/local\nnested/*.md\n",
	"sub/a.txt":             "x\n",
	"sub/important.txt":     "x\n",
	"sub/local/l":           "x\n",
	"sub/deeper/local":      "x\n",
	"sub/nested/x.md":       "x\n",
	"sub/nested/y/x.md":     "x\n",
	"sub/deeper/.gitignore": "!a.txt\n",
	"sub/deeper/a.txt":      "x\n",
	"sub/deeper/b.txt":      "x\n",
	"top.txt":               "x\n",
	".hidden/h":             "x\n",
}

// TestFind_IgnoreRulesAsRipgrep lists ignoreTree with find on the Go
// backend and on ripgrep, from the root and from subdirectories: the Go
// backend's gitignore matching must agree with ripgrep's.
func TestFind_IgnoreRulesAsRipgrep(t *testing.T) {
	if !hasRipgrep() {
		if os.Getenv("CI") == "true" {
			t.Fatal("rg is not on PATH")
		}
		t.Skip("rg is not on PATH")
	}
	root := t.TempDir()
	writeTree(t, root, ignoreTree)
	goSet, rgSet := newSet(t, root, tools.SearchGo), newSet(t, root, tools.SearchRipgrep)
	for _, dir := range []string{".", "sub", "sub/deeper", "gen"} {
		args := `{"pattern":"**","path":"` + dir + `"}`
		got, want := render(run(t, goSet, "find", args)), render(run(t, rgSet, "find", args))
		if got != want {
			t.Errorf("find in %s:\nGo backend:\n%s\nripgrep:\n%s", dir, got, want)
		}
	}
}

// TestFind_IgnoreRulesAsGit lists ignoreTree from the root with find on the
// Go backend and with git ls-files, which applies git's own rules.
func TestFind_IgnoreRulesAsGit(t *testing.T) {
	root := t.TempDir()
	writeTree(t, root, ignoreTree)
	git := func(args ...string) string {
		cmd := exec.Command("git", args...)
		cmd.Dir = root
		cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null")
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("git %v: %v", args, err)
		}
		return string(out)
	}
	git("init", "-q")
	writeTree(t, root, map[string]string{".git/info/exclude": ignoreTree[".git/info/exclude"]})
	want := strings.Fields(git("ls-files", "--others", "--exclude-standard"))
	r := run(t, newSet(t, root, tools.SearchGo), "find", `{"pattern":"**"}`)
	var got []string // files only: find lists directories too, with a slash
	for _, f := range strings.Fields(r.Content[0].Text) {
		if !strings.HasSuffix(f, "/") {
			got = append(got, f)
		}
	}
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("Go backend:\n%s\ngit ls-files:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
