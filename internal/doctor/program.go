package doctor

import (
	"bytes"
	"context"
	"fmt"
	"os/exec"
	"time"
)

// versionTimeout bounds `<program> --version`.
const versionTimeout = 5 * time.Second

// Program is the check of a program agents need on PATH (git, rg): found
// by lookPath (exec.LookPath) and its version line (Version), or, when
// it is missing, the status missing and the fix.
func Program(ctx context.Context, name string, lookPath func(string) (string, error), missing Status, fix string) Check {
	c := Check{Name: name}
	p, err := lookPath(name)
	if err != nil {
		c.Status, c.Detail, c.Fix = missing, name+" is not on PATH", fix
		return c
	}
	v, err := Version(ctx, p)
	if err != nil {
		c.Status, c.Detail = Fail, fmt.Sprintf("%s --version failed: %v", p, err)
		c.Fix = "reinstall " + name
		return c
	}
	c.Status, c.Detail = OK, fmt.Sprintf("%s (%s)", v, p)
	return c
}

// Version runs `path --version` and returns the first line it prints.
func Version(ctx context.Context, path string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, versionTimeout)
	defer cancel()
	out, err := exec.CommandContext(ctx, path, "--version").Output()
	if err != nil {
		return "", err
	}
	line, _, _ := bytes.Cut(bytes.TrimSpace(out), []byte("\n"))
	return string(bytes.TrimSpace(line)), nil
}
