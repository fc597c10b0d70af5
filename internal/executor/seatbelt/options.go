package seatbelt

import (
	"fmt"
	"path/filepath"
	"regexp"

	"github.com/bonsai-run/bonsai/internal/executor"
)

// Network says what network a sandboxed command sees.
type Network string

const (
	// NetworkNone allows no network at all. Seatbelt has no network
	// namespace: the loopback interface is the host's, so it is closed
	// too (a test that serves on 127.0.0.1 needs NetworkAll).
	NetworkNone Network = "none"
	// NetworkAll allows every connection the host can make.
	NetworkAll Network = "all"
	// NetworkProxy allows only TCP connections to ProxyPort on localhost,
	// where Bonsai's allowlisting proxy listens; commands get the
	// HTTP(S)_PROXY variables pointing there.
	NetworkProxy Network = "proxy"
)

// Options configures a Seatbelt profile and the executor that uses it.
// Every path must be absolute.
type Options struct {
	// Root is the workspace root, readable and writable. New sets it to
	// the directory it opens.
	Root string
	// Home is the user's home directory, unreadable inside; New uses
	// os.UserHomeDir when empty. Commands get an empty home of their own.
	Home string
	// DataDir is the Bonsai data directory (tokens, the database, the
	// clones), unreadable inside. Empty hides nothing more.
	DataDir string
	// Hide lists more host directories to make unreadable.
	Hide []string
	// Caches maps an environment variable (GOCACHE, GOMODCACHE,
	// npm_config_cache, PIP_CACHE_DIR, CARGO_HOME...) to a host
	// directory commands can read and write.
	Caches map[string]string
	// Binds are directories commands can reach even below the hidden
	// home or data directory (an engine's state for one ticket): each
	// readable, and writable unless ReadOnly.
	Binds []Bind
	// GitDir is the .git directory of the clone the root is a worktree
	// of: readable, its objects, refs and logs and GitWorktree writable,
	// its config, hooks and info not. Empty when the root is no worktree.
	GitDir string
	// GitWorktree is the worktree's own metadata directory,
	// GitDir/worktrees/<name>, the one Root/.git names. New reads it;
	// a caller of Profile sets it with GitDir.
	GitWorktree string
	// Network is NetworkNone (the default when empty), NetworkAll or
	// NetworkProxy.
	Network Network
	// ProxyPort is the localhost port of the proxy, for NetworkProxy.
	ProxyPort int
	// TmpDir is the executor's private directory, readable and writable:
	// commands get TmpDir/tmp as TMPDIR and TmpDir/home as HOME. New
	// creates one when empty and removes it on Close.
	TmpDir string
	// Env lists extra variable names (or patterns with "*") commands
	// inherit besides executor.CleanEnv's allowlist; the denylist wins.
	Env []string
	// Resolve maps a path to the one macOS reports for it, symlinks
	// evaluated, before the firmlink rule (see Real). New sets it to
	// RealPath; nil applies the firmlink rule alone.
	Resolve func(path string) (string, error)
}

var envName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// check validates o: network settings, absolute paths, usable cache
// variable names, and a GitWorktree inside GitDir/worktrees.
func (o Options) check() (Options, error) {
	switch o.Network {
	case "":
		o.Network = NetworkNone
	case NetworkNone, NetworkAll:
	case NetworkProxy:
		if o.ProxyPort <= 0 || o.ProxyPort > 65535 {
			return o, fmt.Errorf("seatbelt: network mode proxy needs the proxy's localhost port (1-65535), got %d", o.ProxyPort)
		}
	default:
		return o, fmt.Errorf("seatbelt: unknown network mode %q (want none, all or proxy)", o.Network)
	}
	if o.Root == "" {
		return o, fmt.Errorf("seatbelt: no workspace root given")
	}
	if o.Home == "" {
		return o, fmt.Errorf("seatbelt: no home directory given; set Options.Home")
	}
	if o.TmpDir == "" {
		return o, fmt.Errorf("seatbelt: no private temporary directory given; set Options.TmpDir")
	}
	paths := []string{o.Root, o.Home, o.TmpDir}
	paths = append(paths, o.Hide...)
	if o.DataDir != "" {
		paths = append(paths, o.DataDir)
	}
	for k, v := range o.Caches {
		if !envName.MatchString(k) || executor.Denied(k) {
			return o, fmt.Errorf("seatbelt: cache variable %q is not a usable environment name", k)
		}
		paths = append(paths, v)
	}
	for _, b := range o.Binds {
		paths = append(paths, b.Path)
	}
	if (o.GitDir == "") != (o.GitWorktree == "") {
		return o, fmt.Errorf("seatbelt: GitDir and GitWorktree go together; set both or neither")
	}
	if o.GitDir != "" {
		paths = append(paths, o.GitDir, o.GitWorktree)
		if filepath.Dir(filepath.Clean(o.GitWorktree)) != filepath.Join(filepath.Clean(o.GitDir), "worktrees") {
			return o, fmt.Errorf("seatbelt: the worktree metadata %s is not in %s/worktrees", o.GitWorktree, o.GitDir)
		}
	}
	for _, p := range paths {
		if !filepath.IsAbs(p) {
			return o, fmt.Errorf("seatbelt: path %q is not absolute", p)
		}
	}
	if filepath.Clean(o.Home) == "/" {
		return o, fmt.Errorf("seatbelt: the home directory is /, which cannot be hidden; set Options.Home")
	}
	return o, nil
}

// Bind is a directory commands can reach below a hidden one.
type Bind struct {
	// Path is the directory's absolute path.
	Path string
	// ReadOnly lets commands read it only.
	ReadOnly bool
}
