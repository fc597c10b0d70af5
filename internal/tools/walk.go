package tools

import (
	"context"
	"path"
	"strings"

	"github.com/bonsai-run/bonsai/internal/executor"
)

// walkFiles lists the regular files under base (root-relative) the way
// ripgrep does with the flags in rgFlags: hidden files included, .git
// skipped, symlinks not followed, .gitignore files honoured from the root
// down (nested ones too) along with .git/info/exclude. Paths come back
// root-relative in pathLess order.
func walkFiles(ctx context.Context, ex executor.Executor, base string) ([]string, error) {
	var files []string
	err := walk(ctx, ex, base, func(p string, _ int64) { files = append(files, p) })
	return files, err
}

// walk calls fn for each file walkFiles would list, in order, with its
// size.
func walk(ctx context.Context, ex executor.Executor, base string, fn func(path string, size int64)) error {
	var ps []ignoreRule
	if st, err := ex.Stat(ctx, ".git"); err == nil && st.Dir {
		ps = readIgnore(ctx, ex, ".git/info/exclude", nil, ps)
	}
	var domain []string
	if base != "." {
		domain = strings.Split(base, "/")
	}
	for i := range domain {
		dir := strings.Join(domain[:i], "/")
		ps = readIgnore(ctx, ex, path.Join(dir, ".gitignore"), domain[:i], ps)
	}
	return walkDir(ctx, ex, base, domain, ps, fn)
}

func walkDir(ctx context.Context, ex executor.Executor, dir string, domain []string, ps []ignoreRule, fn func(string, int64)) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	ents, err := ex.List(ctx, dir)
	if err != nil {
		return err
	}
	for _, e := range ents {
		if e.Name == ".gitignore" && !e.Dir && !e.Symlink {
			ps = readIgnore(ctx, ex, path.Join(dir, e.Name), domain, ps[:len(ps):len(ps)])
			break
		}
	}
	for _, e := range ents {
		if e.Symlink || e.Name == ".git" {
			continue
		}
		p := append(domain[:len(domain):len(domain)], e.Name)
		if len(ps) > 0 && ignored(ps, p, e.Dir) {
			continue
		}
		rel := path.Join(dir, e.Name)
		if e.Dir {
			if err := walkDir(ctx, ex, rel, p, ps, fn); err != nil {
				return err
			}
		} else if e.Mode.IsRegular() {
			fn(rel, e.Size)
		}
	}
	return nil
}

// readIgnore appends the patterns of an ignore file, if it can be read.
func readIgnore(ctx context.Context, ex executor.Executor, file string, domain []string, ps []ignoreRule) []ignoreRule {
	b, err := ex.ReadFile(ctx, file)
	if err != nil {
		return ps
	}
	for _, line := range strings.Split(string(b), "\n") {
		if r, ok := parseIgnoreRule(strings.TrimSuffix(line, "\r"), domain); ok {
			ps = append(ps, r)
		}
	}
	return ps
}

// pathLess orders paths component by component, as a depth-first walk of
// name-sorted directories does.
func pathLess(a, b string) bool {
	n := min(len(a), len(b))
	for i := 0; i < n; i++ {
		ca, cb := a[i], b[i]
		if ca == cb {
			continue
		}
		if ca == '/' {
			return true
		}
		if cb == '/' {
			return false
		}
		return ca < cb
	}
	return len(a) < len(b)
}
