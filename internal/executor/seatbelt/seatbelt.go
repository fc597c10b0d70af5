package seatbelt

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"

	"github.com/bonsai-run/bonsai/internal/executor"
	"github.com/bonsai-run/bonsai/internal/executor/local"
)

// SandboxExec is where macOS keeps sandbox-exec.
const SandboxExec = "/usr/bin/sandbox-exec"

// Executor is an executor.Executor whose commands run under sandbox-exec
// with the profile of its Options. Its file operations are the embedded
// local executor's.
type Executor struct {
	*local.Executor
	opts      Options
	profile   string
	roProfile string   // ProfileReadOnly, for RunOptions.ReadOnly
	env       []string // KEY=VALUE pairs every command gets after CleanEnv's
	roEnv     []string // and a read-only command's, after env
	shell     string   // bash, else sh
	ownTmp    bool     // remove opts.TmpDir on Close
}

var _ executor.Executor = (*Executor)(nil)

// Installed reports whether this is macOS with /usr/bin/sandbox-exec,
// without running it. Available also checks that it can apply a profile.
func Installed() error {
	if runtime.GOOS != "darwin" {
		return fmt.Errorf("seatbelt: Seatbelt runs on macOS only, not %s; on Linux use the bubblewrap sandbox", runtime.GOOS)
	}
	if _, err := os.Stat(SandboxExec); err != nil {
		return fmt.Errorf("seatbelt: %s is missing (%v); it ships with macOS, so check that the system is intact", SandboxExec, err)
	}
	return nil
}

// Available reports whether Seatbelt can run here: macOS, with
// /usr/bin/sandbox-exec, able to apply a profile (it cannot inside another
// Seatbelt sandbox), which it tries once.
func Available() error {
	if err := Installed(); err != nil {
		return err
	}
	out, err := exec.Command(SandboxExec, "-p", "(version 1)(allow default)", "--", "/usr/bin/true").CombinedOutput()
	if err != nil {
		return fmt.Errorf("seatbelt: sandbox-exec cannot apply a profile here (%v): %s; is Bonsai itself running inside a sandbox?", err, strings.TrimSpace(string(out)))
	}
	return nil
}

// New opens a Seatbelt executor on the directory root: opts.Root is set to
// it, Home defaults to the user's, the runtime's own temporary directory
// is hidden too, the cache directories are created, and GitWorktree is
// read from root/.git when GitDir is set. It fails anywhere but macOS.
func New(root string, opts Options) (*Executor, error) {
	if err := Available(); err != nil {
		return nil, err
	}
	l, err := local.New(root, local.Options{Env: opts.Env})
	if err != nil {
		return nil, err
	}
	s := &Executor{Executor: l, shell: "bash"}
	if _, err := exec.LookPath("bash"); err != nil {
		s.shell = "sh"
	}
	if err := s.setup(opts); err != nil {
		s.Close()
		return nil, err
	}
	return s, nil
}

// setup completes opts, creates the private and cache directories and
// generates the profile.
func (s *Executor) setup(opts Options) error {
	var err error
	opts.Root = s.Root()
	if opts.Home == "" {
		if opts.Home, err = os.UserHomeDir(); err != nil {
			return fmt.Errorf("seatbelt: %w", err)
		}
	}
	opts.Hide = append(append([]string(nil), opts.Hide...), os.TempDir())
	if opts.TmpDir == "" {
		if opts.TmpDir, err = os.MkdirTemp("", "bonsai-seatbelt-"); err != nil {
			return fmt.Errorf("seatbelt: private directory: %w", err)
		}
		s.ownTmp = true
	}
	s.opts = opts // for Close, even when a step below fails
	home, tmp := filepath.Join(opts.TmpDir, "home"), filepath.Join(opts.TmpDir, "tmp")
	for _, d := range []string{home, tmp} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			return fmt.Errorf("seatbelt: private directory: %w", err)
		}
	}
	s.env = []string{"HOME=" + home, "TMPDIR=" + tmp}
	if s.env, err = linkCaches(home, opts.Caches, s.env); err != nil {
		return err
	}
	if opts.Network == NetworkProxy {
		url := "http://127.0.0.1:" + strconv.Itoa(opts.ProxyPort)
		for _, k := range []string{"HTTP_PROXY", "HTTPS_PROXY", "http_proxy", "https_proxy"} {
			s.env = append(s.env, k+"="+url)
		}
	}
	if opts.GitDir != "" {
		if opts.GitWorktree, err = worktreeMeta(opts.Root, opts.GitDir); err != nil {
			return err
		}
		// A first commit creates logs/, which a read-only .git refuses.
		if err := os.MkdirAll(filepath.Join(opts.GitDir, "logs"), 0o755); err != nil {
			return fmt.Errorf("seatbelt: git directory: %w", err)
		}
	}
	opts.Resolve = RealPath
	s.opts = opts
	if s.profile, err = Profile(opts); err != nil {
		return err
	}
	s.roProfile, err = ProfileReadOnly(opts)
	if _, ok := opts.Caches["GOCACHE"]; ok {
		// go vet and go test need a writable build cache; a read-only
		// command gets one of its own in the private directory (the
		// project's could otherwise be given build results that a
		// later, writable command runs).
		s.roEnv = []string{"GOCACHE=" + filepath.Join(tmp, ".bonsai-gocache")}
	}
	return err
}

// linkCaches creates each cache directory and a symlink to it at
// home/.cache/bonsai/<variable, lower-cased>, the path its variable gets,
// as in the Linux sandbox; the profile allows the real directory.
func linkCaches(home string, caches map[string]string, env []string) ([]string, error) {
	for _, k := range sortedKeys(caches) {
		host := caches[k]
		if err := os.MkdirAll(host, 0o755); err != nil {
			return nil, fmt.Errorf("seatbelt: cache %s: %w", k, err)
		}
		in := filepath.Join(home, ".cache", "bonsai", strings.ToLower(k))
		if err := os.MkdirAll(filepath.Dir(in), 0o700); err != nil {
			return nil, fmt.Errorf("seatbelt: cache %s: %w", k, err)
		}
		if err := os.Symlink(host, in); err != nil && !errors.Is(err, os.ErrExist) {
			return nil, fmt.Errorf("seatbelt: cache %s: %w", k, err)
		}
		env = append(env, k+"="+in)
	}
	return env, nil
}

// Profile returns the executor's profile, for diagnostics.
func (s *Executor) Profile() string { return s.profile }

// Close releases the root and removes the private directory New made.
func (s *Executor) Close() error {
	err := s.Executor.Close()
	if s.ownTmp && s.opts.TmpDir != "" {
		if rerr := os.RemoveAll(s.opts.TmpDir); err == nil {
			err = rerr
		}
	}
	return err
}

// Exec implements executor.Executor.
func (s *Executor) Exec(ctx context.Context, argv []string, opts executor.RunOptions) (executor.Exit, error) {
	if err := executor.CheckArgv(argv); err != nil {
		return executor.Exit{}, err
	}
	return s.run(ctx, argv, opts)
}

// Shell implements executor.Executor.
func (s *Executor) Shell(ctx context.Context, script string, opts executor.RunOptions) (executor.Exit, error) {
	return s.run(ctx, []string{s.shell, "-c", script}, opts)
}

// run starts sandbox-exec through the local executor, which gives it its
// own process group, the clean environment, the working directory and
// kill-on-cancel; sandbox-exec applies the profile and execs argv, so the
// group is the command's. HOME, TMPDIR, the caches and the proxy come
// after CleanEnv's pairs and override them; the caller's come last.
func (s *Executor) run(ctx context.Context, argv []string, opts executor.RunOptions) (executor.Exit, error) {
	profile, env := s.profile, append([]string(nil), s.env...)
	if opts.ReadOnly {
		profile, env = s.roProfile, append(env, s.roEnv...)
	}
	args := append([]string{SandboxExec, "-p", profile, "--"}, argv...)
	inner := opts
	inner.ReadOnly = false
	inner.Env = append(env, opts.Env...)
	return s.Executor.Exec(ctx, args, inner)
}
