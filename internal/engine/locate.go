package engine

import (
	"context"
	"fmt"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Locator finds engine CLIs and checks their versions, once per program
// per process.
type Locator struct {
	lookPath func(string) (string, error)
	mu       sync.Mutex
	found    map[string]located
}

type located struct {
	bin string
	err error
}

// NewLocator returns a Locator searching with lookPath (nil:
// exec.LookPath, the runtime's PATH).
func NewLocator(lookPath func(string) (string, error)) *Locator {
	if lookPath == nil {
		lookPath = exec.LookPath
	}
	return &Locator{lookPath: lookPath, found: map[string]located{}}
}

// Locate returns the path of e's CLI, or an error saying it is missing or
// too old, with the command that installs it.
func (l *Locator) Locate(e Engine) (string, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if f, ok := l.found[e.Program()]; ok {
		return f.bin, f.err
	}
	bin, err := l.check(e)
	l.found[e.Program()] = located{bin, err}
	return bin, err
}

func (l *Locator) check(e Engine) (string, error) {
	bin, err := l.lookPath(e.Program())
	if err != nil {
		return "", fmt.Errorf("the %s engine needs the %s command, which is not installed: %s", e.Name(), e.Program(), e.Install())
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, bin, "--version").Output()
	if err != nil {
		return "", fmt.Errorf("%s --version failed (%v): reinstall it with %s", bin, err, e.Install())
	}
	v := Version(string(out))
	if v == "" {
		return "", fmt.Errorf("%s --version printed no version (%q): reinstall it with %s", bin, strings.TrimSpace(string(out)), e.Install())
	}
	if Older(v, e.MinVersion()) {
		return "", fmt.Errorf("%s %s is older than %s, the oldest the %s engine reads: update it with %s", e.Program(), v, e.MinVersion(), e.Name(), e.Install())
	}
	return bin, nil
}

var versionRE = regexp.MustCompile(`\d+\.\d+\.\d+`)

// Version returns the first x.y.z in a --version output, "" when none.
func Version(s string) string { return versionRE.FindString(s) }

// Older reports whether version a is older than b (both x.y.z).
func Older(a, b string) bool {
	pa, pb := strings.Split(a, "."), strings.Split(b, ".")
	for i := 0; i < 3 && i < len(pa) && i < len(pb); i++ {
		x, _ := strconv.Atoi(pa[i])
		y, _ := strconv.Atoi(pb[i])
		if x != y {
			return x < y
		}
	}
	return false
}
