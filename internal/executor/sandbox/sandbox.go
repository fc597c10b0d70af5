package sandbox

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"sync"

	"github.com/bonsai-run/bonsai/internal/executor"
	"github.com/bonsai-run/bonsai/internal/executor/local"
)

// Executor is an executor.Executor whose commands run inside bubblewrap.
// Its file operations are the embedded local executor's.
type Executor struct {
	*local.Executor
	opts  Options
	bwrap string   // host path of bwrap
	mount []string // the bwrap arguments every command shares
	home  string   // HOME inside the sandbox
	env   []string // KEY=VALUE pairs every command gets besides CleanEnv's
	shell string   // bash, else sh
	proxy *proxy   // NetworkProxy's server; nil otherwise
	once  sync.Once
}

var _ executor.Executor = (*Executor)(nil)

// New opens a sandbox executor on the directory root. It fails when bwrap
// is missing (see Available) and on systems other than Linux. For
// NetworkProxy it starts the executor's proxy, which Close stops.
func New(root string, opts Options) (*Executor, error) {
	opts, err := opts.check()
	if err != nil {
		return nil, err
	}
	if opts.Home == "" {
		if opts.Home, err = os.UserHomeDir(); err != nil {
			return nil, fmt.Errorf("sandbox: %w", err)
		}
	}
	if opts.Home == "/" {
		return nil, errors.New("sandbox: the home directory is /, which cannot be hidden; set Options.Home")
	}
	bw, err := bwrapPath()
	if err != nil {
		return nil, err
	}
	l, err := local.New(root, local.Options{Env: opts.Env})
	if err != nil {
		return nil, err
	}
	s := &Executor{Executor: l, opts: opts, bwrap: bw, home: opts.Home, shell: "bash"}
	if _, err := exec.LookPath("bash"); err != nil {
		s.shell = "sh"
	}
	if opts.Network == NetworkProxy {
		if s.proxy, err = startProxy(opts.Proxy); err != nil {
			l.Close()
			return nil, err
		}
	}
	if s.mount, s.env, err = s.mounts(); err != nil {
		s.Close()
		return nil, err
	}
	return s, nil
}

// Close stops the proxy of NetworkProxy, if any, and closes the local
// executor.
func (s *Executor) Close() error {
	var err error
	s.once.Do(func() {
		if s.proxy != nil {
			err = s.proxy.stop()
		}
		err = errors.Join(err, s.Executor.Close())
	})
	return err
}

// Mark adds the KEY=VALUE pair kv to the environment of every command,
// inside the sandbox too, so local.KillMarked finds them (see local.Mark).
func (s *Executor) Mark(kv string) {
	s.Executor.Mark(kv)
	s.env = append(s.env, kv)
}

// Exec implements executor.Executor.
func (s *Executor) Exec(ctx context.Context, argv []string, opts executor.RunOptions) (executor.Exit, error) {
	if len(argv) == 0 {
		return executor.Exit{}, errors.New("exec: empty command")
	}
	if !strings.Contains(argv[0], "/") {
		// The host's root file system is the sandbox's, so the host's
		// PATH lookup is the sandbox's (short of hidden directories).
		if _, err := exec.LookPath(argv[0]); err != nil {
			return executor.Exit{}, fmt.Errorf("run %s: %w", argv[0], executor.ErrCommandNotFound)
		}
	}
	return s.run(ctx, argv, opts)
}

// Shell implements executor.Executor.
func (s *Executor) Shell(ctx context.Context, script string, opts executor.RunOptions) (executor.Exit, error) {
	return s.run(ctx, []string{s.shell, "-c", script}, opts)
}

// run starts bwrap through the local executor, which gives it its own
// process group, the parent-death signal and kill-on-cancel; bwrap's
// --die-with-parent and PID namespace take everything inside with it.
func (s *Executor) run(ctx context.Context, argv []string, opts executor.RunOptions) (executor.Exit, error) {
	dir := s.Root()
	if opts.Dir != "" {
		d, err := s.Resolve(opts.Dir)
		if err != nil {
			return executor.Exit{}, err
		}
		dir = d
	}
	args := make([]string, 0, len(s.mount)+4*len(s.env)+len(argv)+8)
	args = append(args, s.bwrap)
	args = append(args, s.mount...)
	args = append(args, "--chdir", dir, "--clearenv")
	for _, kv := range s.environ(opts.Env) {
		k, v, _ := strings.Cut(kv, "=")
		args = append(args, "--setenv", k, v)
	}
	args = append(args, "--")
	if s.proxy != nil {
		argv = s.proxy.wrap(argv)
	}
	args = append(args, argv...)
	inner := opts
	inner.Dir, inner.Env = "", nil
	return s.Executor.Exec(ctx, args, inner)
}

// environ returns a command's environment: CleanEnv's policy over the
// runtime's, with HOME and TMPDIR pointing inside the sandbox, the cache
// variables and marks, then the caller's extra pairs.
func (s *Executor) environ(extra []string) []string {
	var env []string
	for _, kv := range executor.CleanEnv(os.Environ(), s.opts.Env) {
		name, _, _ := strings.Cut(kv, "=")
		if name == "HOME" || name == "TMPDIR" {
			continue
		}
		env = append(env, kv)
	}
	env = append(env, "HOME="+s.home, "TMPDIR=/tmp")
	env = append(env, s.env...)
	return append(env, extra...)
}

// bwrapPath finds bwrap, or says which package provides it.
func bwrapPath() (string, error) {
	if runtime.GOOS != "linux" {
		return "", fmt.Errorf("sandbox: bubblewrap runs on Linux only, not %s", runtime.GOOS)
	}
	p, err := exec.LookPath("bwrap")
	if err != nil {
		return "", errors.New("sandbox: bwrap not found on PATH; install the bubblewrap package (apt-get install bubblewrap)")
	}
	return p, nil
}

// Installed reports whether bwrap is on PATH (Linux), without starting
// it: cheap enough for every `bonsai status`. Available also checks that
// it can create its namespaces.
func Installed() error {
	_, err := bwrapPath()
	return err
}

// Available reports whether bwrap is installed and can create its
// namespaces here, by running `bwrap --ro-bind / / true` once.
func Available() error {
	p, err := bwrapPath()
	if err != nil {
		return err
	}
	out, err := exec.Command(p, "--ro-bind", "/", "/", "--", "true").CombinedOutput()
	if err != nil {
		return fmt.Errorf("sandbox: bwrap cannot create a namespace here (%v): %s", err, strings.TrimSpace(string(out)))
	}
	return nil
}
