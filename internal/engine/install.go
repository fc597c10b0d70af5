package engine

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// InstallDirs returns the directories the CLI at bin needs to start, for
// a sandbox that hides where it is installed (the home: nvm, volta, fnm,
// Claude Code's native installer; /tmp) to bind read-only: the directory
// of its program with links resolved, or for a CLI installed with npm the
// node_modules directory holding its package (its launcher runs a binary
// of a sibling package), and the directory of the interpreter its first
// line names (#!/usr/bin/env node: node as lookPath finds it, and its
// real directory). The first result is bin with links resolved, the path
// to run. Directories below another are left out.
func InstallDirs(bin string, lookPath func(string) (string, error)) (string, []string, error) {
	real, err := filepath.EvalSymlinks(bin)
	if err != nil {
		return "", nil, fmt.Errorf("the CLI %s: %w", bin, err)
	}
	real, err = filepath.Abs(real)
	if err != nil {
		return "", nil, err
	}
	dirs := []string{packageDir(real)}
	interp, err := interpreter(real, lookPath)
	if err != nil {
		return "", nil, err
	}
	for _, p := range interp {
		dirs = append(dirs, filepath.Dir(p))
		if r, err := filepath.EvalSymlinks(p); err == nil {
			dirs = append(dirs, filepath.Dir(r))
		}
	}
	return real, outermost(dirs), nil
}

// packageDir is the node_modules directory holding the npm package of
// the program at real, else real's directory.
func packageDir(real string) string {
	for d := filepath.Dir(real); d != filepath.Dir(d); d = filepath.Dir(d) {
		if filepath.Base(d) == "node_modules" {
			return d
		}
	}
	return filepath.Dir(real)
}

// maxShebang bounds the first line read of a program.
const maxShebang = 256

// interpreter returns the interpreter the program at path names on its
// first line ("#!/usr/bin/env node", "#!/opt/node/bin/node"), found with
// lookPath when env names it; none for a binary.
func interpreter(path string, lookPath func(string) (string, error)) ([]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("the CLI %s: %w", path, err)
	}
	defer f.Close()
	head := make([]byte, maxShebang)
	n, err := io.ReadFull(f, head)
	if err != nil && err != io.ErrUnexpectedEOF && err != io.EOF {
		return nil, fmt.Errorf("the CLI %s: %w", path, err)
	}
	line, ok := bytes.CutPrefix(head[:n], []byte("#!"))
	if !ok {
		return nil, nil
	}
	line, _, _ = bytes.Cut(line, []byte("\n"))
	fields := strings.Fields(string(line))
	if len(fields) == 0 {
		return nil, nil
	}
	out := []string{fields[0]}
	if filepath.Base(fields[0]) != "env" {
		return out, nil
	}
	for _, a := range fields[1:] {
		if strings.HasPrefix(a, "-") || strings.Contains(a, "=") {
			continue // env's options (-S) and assignments
		}
		p, err := lookPath(a)
		if err != nil {
			return nil, fmt.Errorf("the CLI %s runs with %s, which is not on PATH: install it", path, a)
		}
		if p, err = filepath.Abs(p); err == nil {
			out = append(out, p)
		}
		break
	}
	return out, nil
}

// outermost drops duplicates and directories below another of dirs.
func outermost(dirs []string) []string {
	slices.Sort(dirs)
	var out []string
	for _, d := range dirs {
		if len(out) > 0 {
			last := out[len(out)-1]
			if d == last || strings.HasPrefix(d, strings.TrimSuffix(last, string(filepath.Separator))+string(filepath.Separator)) {
				continue
			}
		}
		out = append(out, d)
	}
	return out
}
