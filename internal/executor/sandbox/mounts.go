package sandbox

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// mounts returns the bwrap arguments every command shares and the cache
// variables' KEY=VALUE pairs. Order matters: bwrap applies them in turn,
// so the hiding tmpfs mounts come first and the directories that must
// stay visible (caches, git metadata, the root) are bound back over them.
// With readOnly, the root, the git metadata and the caches are bound
// read-only.
func (s *Executor) mounts(readOnly bool) ([]string, []string, error) {
	o := s.opts
	a := []string{
		"--ro-bind", "/", "/",
		"--dev", "/dev",
		"--proc", "/proc",
	}
	a = append(a, o.Limits.tmpMount()...)
	a = append(a,
		"--unshare-pid", "--unshare-ipc", "--unshare-uts",
		"--die-with-parent", "--new-session",
	)
	if os.Geteuid() == 0 {
		a = append(a, "--cap-drop", "ALL")
	}
	if o.Network != NetworkAll {
		// Its own network namespace, and no host daemon's socket: /run
		// holds the sockets of dbus, systemd, docker and the user's
		// agents (/run/user/<uid>), which a read-only bind does not stop
		// a client from connecting to.
		a = append(a, "--unshare-net", "--tmpfs", "/run")
		if fi, err := os.Lstat("/var/run"); err == nil && fi.IsDir() {
			a = append(a, "--tmpfs", "/var/run")
		}
	}
	a = append(a, "--tmpfs", s.home)
	hidden := []string{s.home}
	for _, h := range append([]string{o.DataDir}, o.Hide...) {
		if h == "" || within(h, hidden...) {
			continue
		}
		if _, err := os.Stat(h); err != nil {
			continue // nothing to hide
		}
		a = append(a, "--tmpfs", h)
		hidden = append(hidden, h)
	}
	var env []string
	names := make([]string, 0, len(o.Caches))
	for k := range o.Caches {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		host := o.Caches[k]
		if err := os.MkdirAll(host, 0o755); err != nil {
			return nil, nil, fmt.Errorf("sandbox: cache %s: %w", k, err)
		}
		in := filepath.Join(s.home, ".cache", "bonsai", strings.ToLower(k))
		a = append(a, rootBind(readOnly), host, in)
		env = append(env, k+"="+in)
	}
	git, err := gitMounts(s.Root(), o.GitDir, readOnly)
	if err != nil {
		return nil, nil, err
	}
	a = append(a, git...)
	a = append(a, bindArgs(o.Binds)...)
	a = append(a, rootBind(readOnly), s.Root(), s.Root())
	if s.proxy != nil {
		// Last, so that no tmpfs or bind above covers them.
		a = append(a, s.proxy.mounts()...)
	}
	return a, env, nil
}

// rootBind is the bwrap option that binds the workspace root and the
// caches: read-only in the read-only view.
func rootBind(readOnly bool) string {
	if readOnly {
		return "--ro-bind"
	}
	return "--bind"
}

// within reports whether p is one of dirs or below one.
func within(p string, dirs ...string) bool {
	for _, d := range dirs {
		if p == d || strings.HasPrefix(p, strings.TrimSuffix(d, "/")+"/") {
			return true
		}
	}
	return false
}
