package sandbox

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/bonsai-run/bonsai/internal/executor"
)

// gitWritable are the parts of a clone's .git a commit in a worktree
// writes; everything else (config, hooks, info, HEAD) stays read-only.
// packed-refs is rewritten by renaming over it, which a read-only .git
// refuses, so deleting a packed ref fails inside the sandbox.
var gitWritable = []string{"objects", "refs", "logs"}

// gitReadOnly are bound read-only again last, so that no earlier writable
// bind can expose them.
var gitReadOnly = []string{"config", "hooks", "info"}

// metaReadOnly are the files of the worktree's own metadata that tie it
// to the clone. Were commondir writable, a command could point it at a
// directory holding a config of its own (core.fsmonitor, hooks), which the
// runtime's git would then obey outside the sandbox; gitdir tells the
// clone where the worktree is.
var metaReadOnly = []string{"commondir", "gitdir"}

// gitMounts returns the bwrap arguments that make the clone's .git usable
// from a worktree at root: all of it visible read-only, the worktree's own
// metadata directory and gitWritable writable, gitReadOnly read-only;
// with readOnly, all of it read-only.
func gitMounts(root, gitDir string, readOnly bool) ([]string, error) {
	if gitDir == "" {
		return nil, nil
	}
	real, err := filepath.EvalSymlinks(gitDir)
	if err != nil {
		return nil, fmt.Errorf("sandbox: git directory: %w", err)
	}
	meta, err := executor.WorktreeMeta(root, real)
	if err != nil {
		return nil, fmt.Errorf("sandbox: %w", err)
	}
	a := []string{"--ro-bind", real, real}
	if readOnly {
		return a, nil
	}
	if err := os.MkdirAll(filepath.Join(real, "logs"), 0o755); err != nil {
		return nil, fmt.Errorf("sandbox: git directory: %w", err)
	}
	for _, w := range gitWritable {
		p := filepath.Join(real, w)
		fi, err := os.Lstat(p)
		if err != nil {
			continue
		}
		if !fi.IsDir() {
			// bwrap would bind what a link names, writable.
			return nil, fmt.Errorf("sandbox: %s is not a directory (%s): git made no such thing; refusing to bind it", p, fi.Mode().Type())
		}
		a = append(a, "--bind", p, p)
	}
	a = append(a, "--bind", meta, meta)
	for _, r := range metaReadOnly {
		if p := filepath.Join(meta, r); exists(p) {
			a = append(a, "--ro-bind", p, p)
		}
	}
	for _, r := range gitReadOnly {
		if p := filepath.Join(real, r); exists(p) {
			a = append(a, "--ro-bind", p, p)
		}
	}
	return a, nil
}

func exists(p string) bool {
	_, err := os.Lstat(p)
	return err == nil
}
