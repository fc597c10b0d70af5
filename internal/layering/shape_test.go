package layering

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// maxMethodFiles is how many files one type's methods may span: a type
// whose methods sit in more files has grown concerns that want types of
// their own (issue 26, "Heartbeat by concern").
const maxMethodFiles = 3

// spreadChecked are the packages whose types keep their methods in at
// most maxMethodFiles files. internal/executor/sandbox joins them once its
// Executor (25 methods in 8 files when this check was written) is split
// by concern too.
var spreadChecked = []string{"internal/heartbeat", "internal/engine"}

// methodFiles maps each receiver type of the package in dir to the
// non-test files that declare its methods.
func methodFiles(dir string) (map[string][]string, error) {
	fset := token.NewFileSet()
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	files := map[string]map[string]bool{}
	for _, e := range entries {
		name := e.Name()
		if e.IsDir() || !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, filepath.Join(dir, name), nil, parser.SkipObjectResolution)
		if err != nil {
			return nil, err
		}
		for _, d := range f.Decls {
			fn, ok := d.(*ast.FuncDecl)
			if !ok || fn.Recv == nil || len(fn.Recv.List) == 0 {
				continue
			}
			recv := receiverName(fn.Recv.List[0].Type)
			if files[recv] == nil {
				files[recv] = map[string]bool{}
			}
			files[recv][name] = true
		}
	}
	out := map[string][]string{}
	for recv, fs := range files {
		for f := range fs {
			out[recv] = append(out[recv], f)
		}
		sort.Strings(out[recv])
	}
	return out, nil
}

// receiverName is the type name of a receiver: T for T, *T, T[K] and *T[K].
func receiverName(e ast.Expr) string {
	for {
		switch x := e.(type) {
		case *ast.StarExpr:
			e = x.X
		case *ast.IndexExpr:
			e = x.X
		case *ast.IndexListExpr:
			e = x.X
		case *ast.Ident:
			return x.Name
		default:
			return fmt.Sprintf("%T", e)
		}
	}
}

// spread lists the types of methods whose files number more than max.
func spread(pkg string, methods map[string][]string, max int) []string {
	var v []string
	for recv, fs := range methods {
		if len(fs) > max {
			v = append(v, fmt.Sprintf("%s.%s has methods in %d files (at most %d): %s", pkg, recv, len(fs), max, strings.Join(fs, ", ")))
		}
	}
	sort.Strings(v)
	return v
}

// TestMethodSpread fails when a type of a checked package declares its
// methods in more than maxMethodFiles files: split its concerns into
// types of their own, each in its own file.
func TestMethodSpread(t *testing.T) {
	for _, pkg := range spreadChecked {
		methods, err := methodFiles(filepath.Join("..", "..", pkg))
		if err != nil {
			t.Fatal(err)
		}
		for _, v := range spread(pkg, methods, maxMethodFiles) {
			t.Error(v)
		}
	}
}

// TestMethodSpread_Fires checks the rule on a made-up package whose one
// type has methods in four files.
func TestMethodSpread_Fires(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for i, body := range []string{"type T struct{}\nfunc (T) a() {}", "func (*T) b() {}", "func (t *T) c() {}", "func (T) d() {}\nfunc (U) e() {}\ntype U int"} {
		src := "package p\n" + body + "\n"
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("f%d.go", i)), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "f_test.go"), []byte("package p\nfunc (T) t() {}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	methods, err := methodFiles(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(methods["T"]) != 4 || len(methods["U"]) != 1 {
		t.Fatalf("methodFiles = %v, want T in 4 files and U in 1 (test files left out)", methods)
	}
	v := spread("p", methods, 3)
	if len(v) != 1 || !strings.Contains(v[0], "p.T has methods in 4 files") {
		t.Fatalf("spread = %v, want one violation for T", v)
	}
	if v := spread("p", methods, 4); len(v) != 0 {
		t.Fatalf("spread at max 4 = %v, want none", v)
	}
}

// maxFuncLines is the longest a function of a checked package may be,
// counted from its func keyword to its closing brace.
const maxFuncLines = 100

// longChecked are the packages whose functions stay within maxFuncLines
// (issue 26: no god functions).
var longChecked = []string{"internal/heartbeat", "internal/engine", "internal/agentjob", "internal/executor/sandbox", "internal/executor/sandbox/execserver", "internal/cli",
	"internal/cmd/cmdkit", "internal/cmd/ticketcmd", "internal/cmd/projectcmd", "internal/cmd/configcmd", "internal/cmd/servicecmd", "internal/cmd/credcmd", "internal/cmd/notifycmd", "internal/cmd/schedulecmd", "internal/cmd/statscmd", "internal/cmd/toolcmd", "internal/cmd/hookcmd"}

// longFuncs lists the non-test functions of the package in dir longer
// than max lines.
func longFuncs(dir string, max int) ([]string, error) {
	fset := token.NewFileSet()
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var v []string
	for _, e := range entries {
		name := e.Name()
		if e.IsDir() || !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, filepath.Join(dir, name), nil, parser.SkipObjectResolution)
		if err != nil {
			return nil, err
		}
		for _, d := range f.Decls {
			fn, ok := d.(*ast.FuncDecl)
			if !ok {
				continue
			}
			n := fset.Position(fn.End()).Line - fset.Position(fn.Pos()).Line + 1
			if n > max {
				v = append(v, fmt.Sprintf("%s: %s is %d lines (at most %d)", filepath.Join(dir, name), fn.Name.Name, n, max))
			}
		}
	}
	return v, nil
}

// TestFunctionLength fails when a function of a checked package is longer
// than maxFuncLines: split it by what it does.
func TestFunctionLength(t *testing.T) {
	for _, pkg := range longChecked {
		v, err := longFuncs(filepath.Join("..", "..", pkg), maxFuncLines)
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range v {
			t.Error(s)
		}
	}
}

// TestFunctionLength_Fires checks the rule on a made-up file with one
// function one line too long.
func TestFunctionLength_Fires(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	src := "package p\n\nfunc long() {\n" + strings.Repeat("\t_ = 1\n", 4) + "}\n\nfunc short() {}\n"
	if err := os.WriteFile(filepath.Join(dir, "f.go"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	v, err := longFuncs(dir, 5)
	if err != nil {
		t.Fatal(err)
	}
	if len(v) != 1 || !strings.Contains(v[0], "long is 6 lines") {
		t.Fatalf("longFuncs = %v, want long at 6 lines", v)
	}
}
