package executor

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// CheckArgv refuses an empty argv, and a program name without a slash
// that the host's PATH does not find (ErrCommandNotFound). Sandboxes that
// see the host's file system use it before they start one: the host's
// lookup is theirs, short of hidden directories.
func CheckArgv(argv []string) error {
	if len(argv) == 0 {
		return errors.New("exec: empty command")
	}
	if !strings.Contains(argv[0], "/") {
		if _, err := exec.LookPath(argv[0]); err != nil {
			return fmt.Errorf("run %s: %w", argv[0], ErrCommandNotFound)
		}
	}
	return nil
}

// ProgramResolver returns a lookup of bare program names along pathList
// (a PATH value: the one the commands get) for the command policy's
// always-grants (policy.Config.Resolve). It answers the absolute path of
// the first regular executable file of that name, or "" when the name is
// not found, or when an entry before it is relative or empty (the working
// directory, which the agent writes) or lies in one of agentDirs
// (directories the agent can write whose content the host cannot trust
// to be what the command finds). Links are not followed: the path is the
// one PATH names. pathList must hold only directories the host sees as
// the commands do (HiddenPath for the sandbox): then a program the agent
// puts earlier on PATH changes the answer.
func ProgramResolver(pathList string, agentDirs ...string) func(name string) string {
	dirs := cleanAbs(agentDirs)
	entries := filepath.SplitList(pathList)
	return func(name string) string {
		if name == "" || strings.ContainsAny(name, `/\`) || name == "." || name == ".." {
			return ""
		}
		for _, e := range entries {
			if e == "" || !filepath.IsAbs(e) || inAny(filepath.Clean(e), dirs) {
				return ""
			}
			p := filepath.Join(e, name)
			fi, err := os.Stat(p)
			if err == nil && fi.Mode().IsRegular() && fi.Mode().Perm()&0o111 != 0 {
				return p
			}
		}
		return ""
	}
}

// inAny reports whether the clean absolute path p is one of dirs or below one.
func inAny(p string, dirs []string) bool {
	for _, d := range dirs {
		if p == d || strings.HasPrefix(p, d+string(filepath.Separator)) || d == string(filepath.Separator) {
			return true
		}
	}
	return false
}

// HiddenPath returns pathList without the entries a sandbox hides or that
// name no fixed directory: relative and empty entries (the working
// directory), and entries in one of hidden (the home and data directory
// the sandbox replaces with empty, writable tmpfs mounts) unless they lie
// in one of kept (directories bound back at their own path). Inside the
// sandbox those directories hold nothing of the host's, only what the
// agent put there, so a program of a host directory's name placed there
// would run instead of the host's.
func HiddenPath(pathList string, hidden, kept []string) string {
	var out []string
	for _, e := range filepath.SplitList(pathList) {
		if e == "" || !filepath.IsAbs(e) {
			continue
		}
		c := filepath.Clean(e)
		if inAny(c, cleanAbs(hidden)) && !inAny(c, cleanAbs(kept)) {
			continue
		}
		out = append(out, e)
	}
	return strings.Join(out, string(filepath.ListSeparator))
}

func cleanAbs(dirs []string) []string {
	var out []string
	for _, d := range dirs {
		if filepath.IsAbs(d) {
			out = append(out, filepath.Clean(d))
		}
	}
	return out
}
