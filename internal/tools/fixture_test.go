package tools_test

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/bonsai-run/bonsai/internal/executor/local"
	"github.com/bonsai-run/bonsai/internal/tool"
	"github.com/bonsai-run/bonsai/internal/tools"
)

var update = flag.Bool("update", false, "rewrite golden files")

// backends are the grep/find implementations every search test runs on.
var backends = []struct {
	name   string
	search tools.Search
}{{"go", tools.SearchGo}, {"rg", tools.SearchRipgrep}}

// writeTree creates files from a map of relative path to content.
func writeTree(t testing.TB, root string, files map[string]string) {
	t.Helper()
	for p, c := range files {
		full := filepath.Join(root, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// fixture builds the workspace the golden tests run in.
func fixture(t testing.TB) string {
	t.Helper()
	root := filepath.Join(t.TempDir(), "ws")
	var big, wide strings.Builder
	for i := 1; i <= 2500; i++ {
		fmt.Fprintf(&big, "line %d\n", i)
	}
	for i := 0; i < 30; i++ {
		fmt.Fprintf(&wide, "%s %d\n", strings.Repeat("w", 2000), i)
	}
	writeTree(t, root, map[string]string{
		".gitignore":          "*.log\nbuild/\n",
		".git/info/exclude":   "excluded.txt\n",
		".git/HEAD":           "ref: refs/heads/main\n",
		".hidden/config.json": "{\"token\": \"TODO\"}\n",
		"README.md":           "# Demo\n\nTODO: write docs\n",
		"main.go":             "package main\n\nimport \"fmt\"\n\nfunc main() {\n\tfmt.Println(\"hello\")\n}\n",
		"notes.log":           "TODO ignored log\n",
		"src/debug.log":       "TODO ignored by the root .gitignore\n",
		"excluded.txt":        "TODO excluded by info/exclude\n",
		"build/out.txt":       "TODO ignored build\n",
		"src/.gitignore":      "gen.go\n",
		"src/app.go":          "package src\n\n// TODO: handle errors\nfunc App() string {\n\treturn \"app\"\n}\n",
		"src/gen.go":          "package src // TODO generated\n",
		"src/deep/x.ts":       "export const x = 1; // TODO\n",
		"src/a-b.txt":         "dash TODO\n",
		"crlf.txt":            "one\r\ntwo\r\nthree\r\n",
		"bom.txt":             "\ufefffirst\nsecond\n",
		"quotes.txt":          "say \u201chello\u201d \u2014 it\u2019s fine   \nnext line\n",
		"dup.txt":             "x = 1\nx = 1\nx = 1\n",
		"big.txt":             big.String(),
		"wide.txt":            wide.String(),
		"long.txt":            strings.Repeat("z", 60*1024) + "\n",
		"bin.dat":             "TODO\x00binary",
		"latin1.txt":          "caf\xe9\n",
		"empty.txt":           "",
		"img.png":             "\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR",
		"dir/sub/file.txt":    "nested\n",
		"Zeta.txt":            "z\n",
	})
	if err := os.Symlink("main.go", filepath.Join(root, "link.go")); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(filepath.Join(root, "main.go"), 0o755); err != nil {
		t.Fatal(err)
	}
	return root
}

// newSet opens an executor on root and builds the tool set with a fixed
// clock and ID source so that results are deterministic.
func newSet(t testing.TB, root string, search tools.Search) []tool.Tool {
	t.Helper()
	ex, err := local.New(root, local.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ex.Close() })
	n := 0
	return tools.New(ex, tools.Options{
		Search: search,
		Now:    func() time.Time { return time.Unix(0, 0) },
		NewID:  func() string { n++; return fmt.Sprintf("test%04d", n) },
	})
}

func hasRipgrep() bool {
	_, err := exec.LookPath("rg")
	return err == nil
}

// run calls a tool as every host does, through tool.Call.
func run(t testing.TB, ts []tool.Tool, name, args string) tool.Result {
	t.Helper()
	tl := tools.Lookup(ts, name)
	if tl == nil {
		t.Fatalf("no tool %q", name)
	}
	return tool.Call(context.Background(), tl, json.RawMessage(args), nil)
}

// render turns a result into the text stored in a golden file.
func render(r tool.Result) string {
	var b strings.Builder
	fmt.Fprintf(&b, "isError: %v\n", r.IsError)
	for _, c := range r.Content {
		if c.Type == "image" {
			fmt.Fprintf(&b, "--- image %s (%d bytes base64)\n", c.MimeType, len(c.Data))
			continue
		}
		fmt.Fprintf(&b, "--- text\n%s\n", c.Text)
	}
	if r.Details != nil {
		d, _ := json.MarshalIndent(r.Details, "", "  ")
		fmt.Fprintf(&b, "--- details\n%s\n", d)
	}
	return b.String()
}

// golden compares got with testdata/golden/name.golden, or rewrites it.
func golden(t *testing.T, name, got string, write bool) {
	t.Helper()
	p := filepath.Join("testdata", "golden", name+".golden")
	if write {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(p)
	if err != nil {
		t.Fatalf("%v (run with -update)", err)
	}
	if string(want) != got {
		t.Errorf("%s mismatch:\n--- got\n%s\n--- want\n%s", p, got, want)
	}
}
