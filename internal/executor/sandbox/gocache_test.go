package sandbox

import (
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// The Go tests build a tiny program and test a tiny package inside the
// sandbox, each with a build cache of its own on the host. Into an empty
// cache each compiled the runtime and the testing package's imports
// again: about a minute of CPU a test. warmGoCache builds those standard
// packages once per test binary, on the host, into a template that
// seedGoCache copies into a test's cache before its sandbox opens; the
// program's own packages still compile inside, so the cache grows there.
var (
	warmOnce  sync.Once
	warmDir   string
	warmError error
)

// warmGoCache returns the template cache, building it on first use.
func warmGoCache(t *testing.T) string {
	t.Helper()
	warmOnce.Do(func() { warmDir, warmError = buildWarmGoCache() })
	if warmError != nil {
		t.Fatalf("warming a Go build cache on the host: %v", warmError)
	}
	return warmDir
}

// buildWarmGoCache builds and tests a tiny module (another one than the
// tests build) on the host with the environment the tests give go inside
// the sandbox, so the standard packages' cache keys match.
func buildWarmGoCache() (string, error) {
	dir, err := os.MkdirTemp("", "bonsai-sandbox-gocache-")
	if err != nil {
		return "", err
	}
	mod := filepath.Join(dir, "warm")
	files := map[string]string{
		"go.mod":       "module warm\n\ngo 1.21\n",
		"main.go":      "package main\n\nfunc main() { println(\"warm\") }\n",
		"main_test.go": "package main\n\nimport \"testing\"\n\nfunc TestWarm(t *testing.T) {}\n",
	}
	if err := os.MkdirAll(mod, 0o755); err != nil {
		return dir, err
	}
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(mod, name), []byte(body), 0o644); err != nil {
			return dir, err
		}
	}
	cmd := exec.Command("go", "build", "-o", os.DevNull, ".")
	test := exec.Command("go", "test", "-count=1", ".")
	for _, c := range []*exec.Cmd{cmd, test} {
		c.Dir = mod
		c.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + dir, "GOCACHE=" + filepath.Join(dir, "cache"),
			"GOPATH=" + filepath.Join(dir, "gopath"), "GOTOOLCHAIN=local", "GOPROXY=off", "GOFLAGS=-mod=mod"}
		if out, err := c.CombinedOutput(); err != nil {
			return dir, fmt.Errorf("%s: %v\n%s", strings.Join(c.Args, " "), err, out)
		}
	}
	return dir, nil
}

// removeWarmGoCache removes the template, once the tests are done.
func removeWarmGoCache() {
	if warmDir != "" {
		os.RemoveAll(warmDir)
	}
}

// seedGoCache copies the template cache into dst, a test's cache on the
// host, and returns how many files it holds now.
func seedGoCache(t *testing.T, dst string) int {
	t.Helper()
	src := filepath.Join(warmGoCache(t), "cache")
	n := 0
	err := filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, path)
		to := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(to, 0o755)
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		n++
		return os.WriteFile(to, b, 0o644)
	})
	if err != nil {
		t.Fatalf("seeding the build cache %s: %v", dst, err)
	}
	return n
}

// cacheGrew fails unless the host cache dir holds more files than the
// before files it was seeded with: the proof that go inside the sandbox wrote
// its build results through the bound cache.
func cacheGrew(t *testing.T, dir string, before int) {
	t.Helper()
	n := 0
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			n++
		}
		return err
	})
	if err != nil || n <= before {
		t.Errorf("the host cache %s holds %d files, as many as it was seeded with (%d): go inside wrote none (%v)", dir, n, before, err)
	}
}
