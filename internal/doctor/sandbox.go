package doctor

import (
	"fmt"
	"runtime"
	"slices"
	"strings"

	"github.com/bonsai-run/bonsai/internal/board"
)

// sandboxName names this system's sandbox: bubblewrap on Linux, Seatbelt
// on macOS, none elsewhere.
func sandboxName() string {
	switch runtime.GOOS {
	case "linux":
		return "bubblewrap"
	case "darwin":
		return "Seatbelt"
	}
	return ""
}

// Sandbox checks that the sandbox can run (available: nil when it can),
// failing when an active project of projects requires it (the default),
// and warns of projects that run their agents' commands on the host.
// listed is false when the projects could not be read.
func Sandbox(projects []board.Project, listed bool, available error) []Check {
	var required, off []string
	for _, p := range projects {
		if p.Agent.Sandbox == board.SandboxOff {
			off = append(off, p.Slug)
		} else {
			required = append(required, p.Slug)
		}
	}
	c := Check{Name: "sandbox"}
	err := available
	switch {
	case err == nil:
		c.Status, c.Detail = OK, sandboxName()+" can run agents' commands here"
	case len(required) > 0:
		c.Status, c.Detail = Fail, fmt.Sprintf("%v; agents of %s cannot run commands", err, strings.Join(required, ", "))
		c.Fix = sandboxFix(required)
	case !listed || len(off) == 0:
		// No project yet: new projects require the sandbox.
		c.Status, c.Detail, c.Fix = Warn, err.Error()+"; new projects require it", sandboxFix(nil)
	default:
		c.Status, c.Detail = Skip, err.Error()+"; no active project requires it"
	}
	out := []Check{c}
	if len(off) > 0 {
		slices.Sort(off)
		out = append(out, Check{Name: "sandbox off", Status: Warn,
			Detail: fmt.Sprintf("agents of %s run commands on the host as you, outside any sandbox", strings.Join(off, ", ")),
			Fix:    fmt.Sprintf("bonsai project edit %s --sandbox required", off[0])})
	}
	return out
}

// sandboxFix says how to get a sandbox on this system.
func sandboxFix(required []string) string {
	switch runtime.GOOS {
	case "linux":
		return "install bubblewrap (apt-get install bubblewrap, dnf install bubblewrap); in a container, allow user namespaces"
	case "darwin":
		return "sandbox-exec ships with macOS; run Bonsai outside another sandbox"
	}
	p := "<slug>"
	if len(required) > 0 {
		p = required[0]
	}
	return fmt.Sprintf("run Bonsai on Linux, macOS or WSL, or accept commands on the host: bonsai project edit %s --sandbox off", p)
}
