package llm_test

import (
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

const module = "github.com/bonsai-run/bonsai/"

// TestImports keeps the layout's rules for the llm packages: llm itself
// uses only the standard library, adapters never import each other, and
// only the provider wiring imports an adapter.
func TestImports(t *testing.T) {
	// An entry ending in "/..." allows the subtree; others match exactly.
	allowed := map[string][]string{
		".":       {},
		"catalog": {"internal/llm"},
		"llmtest": {"internal/llm"},
		// The adapters speak the wire formats themselves: linking the
		// providers' SDKs cost about 28 MB of resident memory at start.
		"anthropic": {"internal/llm"},
		"openai":    {"internal/llm"},
		"provider":  {"internal/llm/..."},
	}
	for dir, prefixes := range allowed {
		for _, imp := range imports(t, dir) {
			first, _, _ := strings.Cut(imp, "/")
			if !strings.Contains(first, ".") {
				continue // standard library
			}
			ok := false
			for _, p := range prefixes {
				if strings.HasPrefix(p, "internal/") {
					p = module + p
				}
				if tree, sub := strings.CutSuffix(p, "/..."); sub {
					ok = ok || imp == tree || strings.HasPrefix(imp, tree+"/")
				} else {
					ok = ok || imp == p
				}
			}
			if !ok {
				t.Errorf("internal/llm/%s imports %s", dir, imp)
			}
		}
	}
}

// imports lists the imports of a directory's non-test Go files.
func imports(t *testing.T, dir string) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no Go files in %s: %v", dir, err)
	}
	var out []string
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		file, err := parser.ParseFile(token.NewFileSet(), f, src, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range file.Imports {
			p, _ := strconv.Unquote(s.Path.Value)
			out = append(out, p)
		}
	}
	return out
}
