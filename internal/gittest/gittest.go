// Package gittest makes real git repositories for tests, with the git
// command. Commits carry a fixed author and committer, so they work on a
// machine that has no git identity configured. Only tests import it.
package gittest

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// identity is the author and committer of every commit made here.
var identity = []string{
	"GIT_AUTHOR_NAME=Test", "GIT_AUTHOR_EMAIL=t@example.com",
	"GIT_COMMITTER_NAME=Test", "GIT_COMMITTER_EMAIL=t@example.com",
}

// Git runs git with args in dir and returns its combined output with
// surrounding space trimmed.
func Git(dir string, args ...string) (string, error) {
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), identity...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("git %v: %w\n%s", args, err, out)
	}
	return strings.TrimSpace(string(out)), nil
}

// Run is Git for a test: it fails t when git fails.
func Run(t testing.TB, dir string, args ...string) string {
	t.Helper()
	out, err := Git(dir, args...)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// Init makes dir, creating it, a repository whose branch main has one
// commit, "initial", of files: each path, relative to dir and with its
// directories created, holding its content. No files commits README.md
// reading "# demo".
func Init(dir string, files map[string]string) error {
	if len(files) == 0 {
		files = map[string]string{"README.md": "# demo\n"}
	}
	for name, content := range files {
		path := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return fmt.Errorf("repo file: %w", err)
		}
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			return fmt.Errorf("repo file: %w", err)
		}
	}
	for _, args := range [][]string{
		{"init", "-q", "-b", "main"},
		{"add", "."},
		{"commit", "-q", "-m", "initial"},
	} {
		if _, err := Git(dir, args...); err != nil {
			return err
		}
	}
	return nil
}

// Repo is Init for a test: it fails t when Init fails, and returns dir.
func Repo(t testing.TB, dir string, files map[string]string) string {
	t.Helper()
	if err := Init(dir, files); err != nil {
		t.Fatal(err)
	}
	return dir
}
