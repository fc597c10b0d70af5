package seatbelt

import (
	"fmt"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// gitWritable are the parts of a clone's .git a commit in a worktree
// writes; gitReadOnly are denied writes last, whatever allowed them.
var (
	gitWritable = []string{"objects", "refs", "logs"}
	gitReadOnly = []string{"config", "hooks", "info"}
)

// hiddenAlways are hidden whatever the options say: the shared temporary
// directory, which the Linux sandbox replaces with a private one.
var hiddenAlways = []string{"/private/tmp"}

// base is what any command needs: processes, signals and process
// information within the sandbox, system settings, the directory and
// notification services libc uses (user names, time zones), and
// terminals. The whole host is readable; the rules after it take away.
const base = `(version 1)
(deny default)

; processes, within the sandbox
(allow process-exec process-fork)
(allow signal (target same-sandbox))
(allow process-info* (target same-sandbox))
(allow sysctl-read)
(allow mach-lookup
  (global-name "com.apple.system.opendirectoryd.libinfo")
  (global-name "com.apple.system.opendirectoryd.membership")
  (global-name "com.apple.system.notification_center")
  (global-name "com.apple.system.logger")
  (global-name "com.apple.logd")
  (global-name "com.apple.cfprefsd.daemon")
  (global-name "com.apple.cfprefsd.agent"))
(allow ipc-posix-shm-read-data (ipc-posix-name "apple.shm.notification_center"))
(allow pseudo-tty)

; the host, read-only
(allow file-read*)

; devices
(allow file-read* file-write*
  (literal "/dev/null")
  (literal "/dev/zero")
  (literal "/dev/tty")
  (literal "/dev/ptmx")
  (literal "/dev/dtracehelper")
  (regex #"^/dev/fd/[0-9]+$")
  (regex #"^/dev/ttys[0-9]+$"))
(allow file-ioctl
  (literal "/dev/tty")
  (literal "/dev/ptmx")
  (regex #"^/dev/ttys[0-9]+$"))
`

// xcrunCache is the cache file of xcrun, which /usr/bin/git, make, cc and
// the other developer-tool shims run through; it lives in the per-user
// temporary directory the profile otherwise hides.
const xcrunCache = `(allow file-read* file-write* (regex #"^/private/var/folders/[^/]+/[^/]+/T/xcrun_db"))
`

// tlsServices are what the Security framework needs to verify a
// certificate, for NetworkAll and NetworkProxy (TLS goes through the
// proxy end to end).
const tlsServices = `(allow mach-lookup
  (global-name "com.apple.trustd")
  (global-name "com.apple.trustd.agent")
  (global-name "com.apple.SecurityServer")
  (global-name "com.apple.ocspd"))
`

// Profile returns the SBPL profile for o. Seatbelt applies the last rule
// that matches, so the profile goes from broad to narrow: everything
// readable; the home, the data directory, the temporary directories and
// Hide unreadable; the directories above the allowed ones visible as
// names only; the root, caches and private directory readable and
// writable; the clone's .git readable and partly writable; its config,
// hooks and info, and the .git directory itself, never writable; then the
// network. Every path goes through Real with o.Resolve and is quoted.
func Profile(o Options) (string, error) {
	return profile(o, false)
}

// ProfileReadOnly returns the profile of a command that must not write
// the workspace (executor.RunOptions.ReadOnly): Profile's, then, last, so
// that it wins over every rule that allowed them, no writes to the
// workspace root, the caches or the clone's .git and the worktree's
// metadata in it. The private directory and the binds stay as they are,
// as in the Linux sandbox's read-only view.
func ProfileReadOnly(o Options) (string, error) {
	return profile(o, true)
}

func profile(o Options, readOnly bool) (string, error) {
	o, err := o.check()
	if err != nil {
		return "", err
	}
	w := &writer{resolve: o.Resolve}
	w.b.WriteString("; Bonsai's Seatbelt profile, generated; do not edit.\n")
	w.b.WriteString(base)

	hidden := append([]string{o.Home}, o.DataDir)
	hidden = append(hidden, o.Hide...)
	hide := w.reals(hidden)
	hide = append(hide, hiddenAlways...)
	hide = outermost(hide)
	w.rule("\n; hidden: the home, the data directory, temporary directories, Hide\n(deny file-read*", "subpath", hide)

	open := w.reals([]string{o.Root, o.TmpDir})
	for _, k := range sortedKeys(o.Caches) {
		open = append(open, w.real(o.Caches[k]))
	}
	var readable []string
	for _, b := range o.Binds {
		if b.ReadOnly {
			readable = append(readable, w.real(b.Path))
		} else {
			open = append(open, w.real(b.Path))
		}
	}
	var gitDir string
	var gitOpen, gitShut, gitFixed []string
	if o.GitDir != "" {
		gitDir = w.real(o.GitDir)
		for _, d := range gitWritable {
			gitOpen = append(gitOpen, filepath.Join(gitDir, d))
		}
		meta := w.real(o.GitWorktree)
		gitOpen = append(gitOpen, meta)
		for _, d := range gitReadOnly {
			gitShut = append(gitShut, filepath.Join(gitDir, d))
		}
		// The files tying the worktree to the clone, and its metadata
		// directory itself (no renaming it away): a command that pointed
		// commondir at a config of its own would have the runtime's git,
		// outside the sandbox, obey it.
		gitFixed = []string{gitDir, meta, filepath.Join(meta, "commondir"), filepath.Join(meta, "gitdir")}
	}
	visible := append(append(append([]string(nil), open...), readable...), gitDir)
	w.rule("\n; the directories above the allowed ones, by name only\n(allow file-read-metadata", "literal", ancestors(visible, hide))
	w.rule("\n; the workspace root, the private directory and the caches\n(allow file-read* file-write*", "subpath", open)
	w.rule("\n; read-only below the hidden directories\n(allow file-read*", "subpath", readable)
	w.b.WriteString(xcrunCache)
	if gitDir != "" {
		w.rule("\n; the clone's .git: readable; what a commit writes, writable\n(allow file-read*", "subpath", []string{gitDir})
		w.rule("(allow file-write*", "subpath", gitOpen)
		w.b.WriteString("; never writable: its config, hooks and info, nor .git itself (no renaming it away),\n")
		w.b.WriteString("; nor the files tying the worktree to the clone\n")
		w.rule("(deny file-write*", "subpath", gitShut)
		w.rule("(deny file-write*", "literal", gitFixed)
	}
	if readOnly {
		shut := []string{w.real(o.Root)}
		for _, k := range sortedKeys(o.Caches) {
			shut = append(shut, w.real(o.Caches[k]))
		}
		if gitDir != "" {
			shut = append(shut, gitDir, w.real(o.GitWorktree))
		}
		w.rule("\n; read-only: no writes to the workspace root, the caches, the clone's .git\n(deny file-write*", "subpath", outermost(shut))
	}
	w.network(o)
	if w.err != nil {
		return "", w.err
	}
	return w.b.String(), nil
}

// writer builds a profile, keeping the first error.
type writer struct {
	b       strings.Builder
	resolve func(string) (string, error)
	err     error
}

func (w *writer) real(p string) string {
	if w.err != nil || p == "" {
		return p
	}
	r, err := Real(p, w.resolve)
	if err != nil {
		w.err = err
	}
	return r
}

func (w *writer) reals(ps []string) []string {
	var out []string
	for _, p := range ps {
		if p != "" {
			out = append(out, w.real(p))
		}
	}
	return out
}

// rule writes head, then one (filter "path") per path, then ")"; nothing
// when paths is empty.
func (w *writer) rule(head, filter string, paths []string) {
	if len(paths) == 0 || w.err != nil {
		return
	}
	w.b.WriteString(head)
	for _, p := range paths {
		q, err := quote(p)
		if err != nil {
			w.err = err
			return
		}
		fmt.Fprintf(&w.b, "\n  (%s %s)", filter, q)
	}
	w.b.WriteString(")\n")
}

// network writes the rules of o.Network.
func (w *writer) network(o Options) {
	switch o.Network {
	case NetworkAll:
		w.b.WriteString("\n; network: all\n(allow network*)\n(allow system-socket)\n")
		w.b.WriteString("(allow mach-lookup (global-name \"com.apple.dnssd.service\"))\n")
		w.b.WriteString(tlsServices)
	case NetworkProxy:
		w.b.WriteString("\n; network: only the proxy on localhost\n")
		fmt.Fprintf(&w.b, "(allow network-outbound (remote tcp %q))\n", "localhost:"+strconv.Itoa(o.ProxyPort))
		w.b.WriteString(tlsServices)
	default:
		w.b.WriteString("\n; network: none\n")
	}
}

// ancestors returns the proper ancestors of paths that lie in or at one
// of hidden, sorted: a command may stat them (getcwd, realpath) but not
// list them.
func ancestors(paths, hidden []string) []string {
	seen := map[string]bool{}
	for _, p := range paths {
		if p == "" {
			continue
		}
		for d := filepath.Dir(p); ; d = filepath.Dir(d) {
			if within(d, hidden) {
				seen[d] = true
			}
			if d == "/" {
				break
			}
		}
	}
	out := make([]string, 0, len(seen))
	for d := range seen {
		out = append(out, d)
	}
	sort.Strings(out)
	return out
}

// within reports whether p is one of dirs or below one.
func within(p string, dirs []string) bool {
	for _, d := range dirs {
		if p == d || strings.HasPrefix(p, strings.TrimSuffix(d, "/")+"/") {
			return true
		}
	}
	return false
}

// outermost returns ps, in order, without the paths at or below an
// earlier one or below a later one: hiding those adds nothing.
func outermost(ps []string) []string {
	var out []string
	for i, p := range ps {
		keep := !within(p, ps[:i])
		for _, q := range ps[i+1:] {
			if p != q && within(p, []string{q}) {
				keep = false
			}
		}
		if keep {
			out = append(out, p)
		}
	}
	return out
}

func sortedKeys(m map[string]string) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}
