package tools

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
)

// chromiumNames are the programs FindChromium looks for on PATH: Debian's
// package, then other distributions'.
var chromiumNames = []string{"chromium", "chromium-browser"}

// FindChromium returns the absolute path of the Chromium the screenshot
// tool runs, or "" when none is installed: Linux only, since the tool runs
// it inside the sandbox with Chromium's own sandbox off. lookPath is
// exec.LookPath when nil. A program in the user's home is passed over:
// the sandbox hides the home, so commands could not run it.
func FindChromium(lookPath func(string) (string, error)) string {
	if runtime.GOOS != "linux" {
		return ""
	}
	if lookPath == nil {
		lookPath = exec.LookPath
	}
	home, _ := os.UserHomeDir()
	for _, name := range chromiumNames {
		p, err := lookPath(name)
		if err != nil || !filepath.IsAbs(p) {
			continue
		}
		if home != "" && home != "/" && within(p, home) {
			continue
		}
		return p
	}
	return ""
}

// within reports whether p is dir or below it.
func within(p, dir string) bool {
	rel, err := filepath.Rel(dir, p)
	return err == nil && rel != ".." && !filepath.IsAbs(rel) && (len(rel) < 3 || rel[:3] != "../")
}
