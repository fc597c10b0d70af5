package sandbox

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"slices"
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
	exe   string   // host path of the command server's binary; "" with PerCommand or program
	// program is the embedded bonsai-exec the command server runs from
	// (embedded_linux.go), shared by every executor; nil when exe runs.
	program *os.File
	tmp     string // host directory for the control sockets' directories
	once    sync.Once

	cg   *cgroup    // the sandboxes' cgroup (Limits); nil without one
	disk *diskGuard // Limits.DiskGrowth's guard; nil without it

	// roMount are mount's with the root, the git metadata and the caches read-only,
	// for RunOptions.ReadOnly (mount itself with Options.ReadOnly).
	roMount []string

	srvMu  sync.Mutex
	srv    *server // the persistent sandbox; nil until the first command
	roSrv  *server // the read-only one; nil until the first RunOptions.ReadOnly command
	closed bool
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
	s := &Executor{Executor: l, opts: opts, bwrap: bw, home: opts.Home, shell: "bash", tmp: os.TempDir()}
	if _, err := exec.LookPath("bash"); err != nil {
		s.shell = "sh"
	}
	if opts.Network == NetworkProxy {
		if s.proxy, err = startProxy(opts.Proxy); err != nil {
			l.Close()
			return nil, err
		}
	}
	if !opts.PerCommand {
		if s.exe, s.program, err = serverProgram(opts); err != nil {
			s.Close()
			return nil, err
		}
	}
	if s.mount, s.env, err = s.mounts(opts.ReadOnly); err != nil {
		s.Close()
		return nil, err
	}
	if opts.Limits.DiskGrowth > 0 {
		s.disk = newDiskGuard(opts.Limits.DiskGrowth, s.Root(), opts.GitDir)
	}
	if !opts.PerCommand && !opts.noCgroup {
		s.cg = newCgroup(opts.Limits)
	}
	s.roMount = s.mount
	if !opts.ReadOnly {
		if s.roMount, _, err = s.mounts(true); err != nil {
			s.Close()
			return nil, err
		}
	}
	return s, nil
}

// serverProgram returns what runs as the command server: Options.Server,
// or Options.Proxy.Bridge in the proxy mode, when set (a host path); else
// the embedded bonsai-exec (program), where it can run; else the running
// binary, which dispatches BridgeArg to BridgeMain.
func serverProgram(opts Options) (exe string, program *os.File, err error) {
	exe = opts.Server
	if exe == "" && opts.Network == NetworkProxy {
		exe = opts.Proxy.Bridge
	}
	if exe == "" {
		if program, _ = embeddedServer(); program != nil {
			return "", program, nil
		}
	}
	exe, err = executable(exe, "Options.Server")
	return exe, nil, err
}

// Close ends the persistent sandbox, if one runs, with every process in
// it (commands still running end as killed, exit 137), stops the proxy of
// NetworkProxy, if any, and closes the local executor.
func (s *Executor) Close() error {
	var err error
	s.once.Do(func() {
		s.stopServer(true)
		s.cg.remove()
		if s.proxy != nil {
			err = s.proxy.stop()
		}
		err = errors.Join(err, s.Executor.Close())
	})
	return err
}

// ContainsProcesses implements executor.Contained: every command runs in
// a PID namespace of its own bwrap (the persistent sandbox's, or one a
// command with PerCommand), which takes every process inside along when
// its PID 1 ends, and Close ends the persistent one and waits for it.
// Nothing outside a namespace carries the executor's marks: its proxy
// runs in the caller's process.
func (s *Executor) ContainsProcesses() bool { return true }

// Mark adds the KEY=VALUE pair kv to the environment of every command,
// inside the sandbox too, so local.KillMarked finds them (see local.Mark).
// A persistent sandbox already running is ended, so that the next
// command starts one whose every process carries the mark. A mark the
// executor already has changes nothing: the running sandbox carries it
// (executor.WithMark marks the executor before its first command).
func (s *Executor) Mark(kv string) {
	if slices.Contains(s.env, kv) {
		return
	}
	s.Executor.Mark(kv)
	s.env = append(s.env, kv)
	s.stopServer(false)
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

// run runs argv within the executor's limits (limits.go), and says so in
// its output when it met one.
func (s *Executor) run(ctx context.Context, argv []string, opts executor.RunOptions) (executor.Exit, error) {
	dir := s.Root()
	if opts.Dir != "" {
		d, err := s.Resolve(opts.Dir)
		if err != nil {
			return executor.Exit{}, err
		}
		dir = d
	}
	if s.opts.Limits == (Limits{}) {
		return s.runIn(ctx, argv, dir, opts)
	}
	before := s.cg.read()
	rctx, stop := ctx, func() {}
	if s.disk != nil {
		s.disk.begin()
		rctx, stop = s.disk.watch(ctx)
	}
	x, err := s.runIn(rctx, argv, dir, opts)
	stopped := errors.Is(context.Cause(rctx), errDiskGrowth) && ctx.Err() == nil
	stop()
	if err == nil {
		s.limitNotes(&x, opts, before, stopped)
	}
	return x, err
}

// runIn runs argv in dir (a host path) in the persistent sandbox, or
// with PerCommand starts bwrap for it through the local executor, which
// gives it its own process group, the parent-death signal and
// kill-on-cancel; bwrap's --die-with-parent and PID namespace take
// everything inside with it.
func (s *Executor) runIn(ctx context.Context, argv []string, dir string, opts executor.RunOptions) (executor.Exit, error) {
	if !s.opts.PerCommand {
		return s.runPersistent(ctx, argv, dir, opts)
	}
	mount := s.mount
	if opts.ReadOnly {
		mount = s.roMount
	}
	args := make([]string, 0, len(mount)+4*len(s.env)+len(argv)+8)
	args = append(args, s.bwrap)
	args = append(args, mount...)
	args = append(args, "--chdir", dir, "--clearenv")
	for _, kv := range s.environ(s.viewEnv(opts)) {
		k, v, _ := strings.Cut(kv, "=")
		args = append(args, "--setenv", k, v)
	}
	args = append(args, "--")
	if s.proxy != nil {
		argv = s.proxy.wrap(argv)
	}
	args = append(args, argv...)
	inner := opts
	inner.Dir, inner.Env, inner.ReadOnly = "", nil, false
	return s.Executor.Exec(ctx, args, inner)
}

// environ returns a command's environment: CleanEnv's policy over the
// runtime's, with HOME and TMPDIR pointing inside the sandbox, the cache
// variables and marks, then the caller's extra pairs.
func (s *Executor) environ(extra []string) []string {
	var env []string
	for _, kv := range executor.CleanEnv(os.Environ(), s.opts.Env) {
		name, _, _ := strings.Cut(kv, "=")
		switch name {
		case "HOME", "TMPDIR":
			continue
		case "PATH":
			kv = "PATH=" + s.commandPath(kv[len("PATH="):])
		}
		env = append(env, kv)
	}
	env = append(env, "HOME="+s.home, "TMPDIR=/tmp")
	env = append(env, s.env...)
	return append(env, extra...)
}

// commandPath is the PATH commands get: the runtime's without the
// entries the sandbox hides behind writable tmpfs mounts (the home, the
// data directory, /tmp) that no bind shows again. Those hold only what
// the agent wrote there, which must not run in place of a host program
// of the same name (executor.HiddenPath; an always-grant records the
// program found on this PATH).
func (s *Executor) commandPath(path string) string {
	hidden := append([]string{s.home, s.opts.DataDir, "/tmp"}, s.opts.Hide...)
	kept := make([]string, len(s.opts.Binds))
	for i, b := range s.opts.Binds {
		kept[i] = b.Host
		if b.At != "" {
			kept[i] = b.At
		}
	}
	return executor.HiddenPath(path, hidden, kept)
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
