// Command typecheck type-checks the module's packages, and everything they
// import, for the GOOS and GOARCH in its environment, from source: what
// `GOOS=darwin go build ./...` checks of Bonsai on another system (every
// file that system builds, every import resolved, every type right),
// without compiling. A cross build compiles the SQLite driver's machine
// translated C (megabytes of Go a system) for each system, which was most
// of CI's 200 s of CPU for the macOS and Windows builds.
//
// Usage: GOOS=darwin go run ./.ci/typecheck ./...
//
// Imported packages outside the module are checked without their function
// bodies (their exported API is what the module's packages use); the
// module's own packages are checked whole. It exits 1 and prints every
// error when a package does not type-check or `go list` reports one.
package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"go/types"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
)

// pkg is the part of `go list -json` this command reads.
type pkg struct {
	ImportPath string
	Dir        string
	GoFiles    []string
	ImportMap  map[string]string
	Module     *struct{ Main bool }
	Error      *struct{ Err string }
	DepsErrors []*struct{ Err string }
}

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "typecheck:", err)
		os.Exit(1)
	}
}

// run lists the patterns' packages with their dependencies, deepest first,
// and checks each once its imports are checked.
func run(patterns []string) error {
	pkgs, err := list(patterns)
	if err != nil {
		return err
	}
	goos, goarch := env("GOOS", runtime.GOOS), env("GOARCH", runtime.GOARCH)
	c := checker{fset: token.NewFileSet(), done: map[string]*types.Package{}, sizes: types.SizesFor("gc", goarch)}
	var errs []error
	for _, p := range pkgs {
		if p.Error != nil {
			errs = append(errs, fmt.Errorf("%s: %s", p.ImportPath, p.Error.Err))
			continue
		}
		errs = append(errs, c.check(p)...)
	}
	if len(errs) > 0 {
		return fmt.Errorf("%s/%s:\n%w", goos, goarch, errors.Join(errs...))
	}
	fmt.Printf("typecheck: %d packages type-check for %s/%s\n", len(pkgs), goos, goarch)
	return nil
}

// list runs go list -deps, which gives a package after everything it imports.
func list(patterns []string) ([]pkg, error) {
	args := append([]string{"list", "-e", "-deps", "-json=ImportPath,Dir,GoFiles,ImportMap,Module,Error,DepsErrors"}, patterns...)
	cmd := exec.Command("go", args...)
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0") // as a cross build
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	var pkgs []pkg
	dec := json.NewDecoder(out)
	for {
		var p pkg
		if err := dec.Decode(&p); err == io.EOF {
			break
		} else if err != nil {
			cmd.Wait()
			return nil, fmt.Errorf("reading go list: %w", err)
		}
		pkgs = append(pkgs, p)
	}
	if err := cmd.Wait(); err != nil {
		return nil, fmt.Errorf("go list: %w", err)
	}
	return pkgs, nil
}

// checker type-checks packages in go list's order, keeping each result
// for the packages that import it.
type checker struct {
	fset  *token.FileSet
	done  map[string]*types.Package
	sizes types.Sizes
}

// check parses and type-checks p, returning its errors.
func (c *checker) check(p pkg) []error {
	if p.ImportPath == "unsafe" {
		c.done["unsafe"] = types.Unsafe
		return nil
	}
	mine := p.Module != nil && p.Module.Main
	mode := parser.SkipObjectResolution | parser.ParseComments
	files := make([]*ast.File, 0, len(p.GoFiles))
	for _, name := range p.GoFiles {
		f, err := parser.ParseFile(c.fset, filepath.Join(p.Dir, name), nil, mode)
		if err != nil {
			return []error{err}
		}
		files = append(files, f)
	}
	var errs []error
	conf := types.Config{
		Importer:         importer{c, p},
		Sizes:            c.sizes,
		IgnoreFuncBodies: !mine,
		Error:            func(err error) { errs = append(errs, err) },
	}
	tp, _ := conf.Check(p.ImportPath, c.fset, files, nil)
	c.done[p.ImportPath] = tp
	return errs
}

// importer resolves one package's imports to the packages already checked.
type importer struct {
	c *checker
	p pkg
}

// Import returns the checked package path names in the importing package.
func (i importer) Import(path string) (*types.Package, error) {
	if mapped, ok := i.p.ImportMap[path]; ok {
		path = mapped
	}
	if tp, ok := i.c.done[path]; ok && tp != nil {
		return tp, nil
	}
	return nil, fmt.Errorf("%s imports %s, which go list did not list before it", i.p.ImportPath, path)
}

// env is the variable's value, or def when it is unset.
func env(key, def string) string {
	if v := os.Getenv(key); v != "" {
		return v
	}
	return def
}
