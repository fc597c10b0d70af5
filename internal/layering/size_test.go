package layering

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// sizeBudgets bound the non-test lines (as wc -l counts them: comments
// and blank lines too) of groups of packages that grew back before:
// internal/cli is wiring, and product logic belongs to the packages that
// own it (issue 26).
var sizeBudgets = []struct {
	pkgs []string
	max  int
}{
	{[]string{"internal/cli"}, 3999},
}

// goLines counts the lines of the non-test Go files directly in dir.
func goLines(dir string) (int, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return 0, err
	}
	n := 0
	for _, e := range entries {
		name := e.Name()
		if e.IsDir() || !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			continue
		}
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			return 0, err
		}
		n += bytes.Count(b, []byte("\n"))
	}
	return n, nil
}

// TestPackageSize fails when a budgeted group of packages outgrows its
// budget: move the logic to the package that owns it rather than raise
// the number.
func TestPackageSize(t *testing.T) {
	t.Parallel()
	for _, b := range sizeBudgets {
		total := 0
		for _, pkg := range b.pkgs {
			n, err := goLines(filepath.Join("..", "..", pkg))
			if err != nil {
				t.Fatal(err)
			}
			total += n
		}
		if total > b.max {
			t.Errorf("%s: %d non-test lines, at most %d", strings.Join(b.pkgs, " + "), total, b.max)
		}
	}
}

// TestGoLines_Counts checks the count on a made-up package: test files
// and subdirectories are left out.
func TestGoLines_Counts(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	write := func(name, src string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("a.go", "package p\n\n// x\nvar x = 1\n")
	write("b.go", "package p\n")
	write("a_test.go", "package p\n\nvar y = 2\n")
	write("sub/c.go", "package sub\n")
	write("notes.txt", "one\ntwo\n")
	if n, err := goLines(dir); err != nil || n != 5 {
		t.Fatalf("goLines = %d, %v; want 5", n, err)
	}
}
