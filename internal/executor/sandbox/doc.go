// Package sandbox is the Executor that runs every command inside
// bubblewrap (bwrap) on Linux: the host file system read-only, the
// workspace root read-write, a private /tmp, a fresh /proc and /dev, an
// empty home in place of the user's, the Bonsai data directory hidden,
// its own PID, IPC and UTS namespaces and, unless asked otherwise, no
// network. File operations are the local executor's, unchanged: they are
// already confined to the root through os.Root.
//
// One sandbox per executor: the first command starts bwrap once, with
// the executor's mounts and namespaces, running a small command server
// (package execserver), and every command of the executor runs in it
// until Close. The server is the bonsai-exec program the binary embeds
// (execbin): a standard-library-only program of 2.4 MB, written
// once per process into a sealed memfd (readable and executable by the
// user only; no write, resize or unseal possible) that bwrap runs as
// /proc/self/fd/4, which the server closes first thing, so no command
// reaches it. Where it cannot run (no build for the architecture, or a
// kernel refusing executable memfds) the bonsai binary itself serves,
// as `bonsai BridgeArg --serve`; Options.Server names another program. The host
// hands the server the listener of a unix socket in a private 0700
// directory and keeps no copy of it; each command is one connection
// carrying its argv, environment and directory, with its stdin, stdout
// and stderr passed as file descriptors (SCM_RIGHTS): pipes the host
// reads, as the local executor's. The server starts it in a session and
// process group of its own, with the environment the per-command path
// gives (CleanEnv's, HOME and TMPDIR inside, caches, marks, the caller's
// pairs, set for each command, not inherited from the server), and
// reports its exit (128+N for a death by signal N). A canceled or timed
// out command, or one whose connection drops, has its group killed. When
// a command ends, the server kills its group, the processes carrying its
// own number (BONSAI_SANDBOX_COMMAND, which a process leaving the
// session keeps), and, when no other command runs, every process of the
// sandbox but itself (it is the sandbox's PID 1, bwrap --as-pid-1, and
// waits for the orphans reparented to it): so a command leaves nothing
// behind, as with one sandbox per command, except that while commands
// of the same executor run concurrently, a process that both left its
// command's session and dropped the variable lives until the sandbox
// is next idle or closed. Close kills bwrap, and the PID namespace takes
// every process inside along, setsid ones included; --die-with-parent and
// the parent-death signal end it with the runtime; the executor's marks
// (Mark) are on the server and every command, so local.KillMarked finds
// them after a crash. A server that died (killed from inside, or by
// KillMarked) is replaced for the next command; a command it was
// running ends as killed (137) with a note in its output. Exit.PID is
// the command's PID inside the sandbox.
//
// So the commands of one executor (one ticket's run) share /tmp, and
// see each other's processes while they run; the home, the workspace
// and the caches were shared already. Options.PerCommand starts one
// bwrap per command instead, with a fresh /tmp each time, at about 5 ms
// more a command (11 in proxy mode, where the bridge starts too).
//
// Network modes: NetworkNone gives a network namespace with only a
// loopback and an empty /run, where the host daemons' unix sockets are;
// NetworkAll shares the host's network and /run; NetworkProxy gives a namespace
// of its own in which only an HTTP(S) proxy is reachable. For it, New
// starts the executor's own internal/netproxy server on a unix socket in
// a private 0700 directory (Close stops it and removes the directory).
// The socket and the bonsai binary (Options.Proxy.Bridge) are bound
// read-only under /run/bonsai in the sandbox. The command server, in
// this mode, listens on an ephemeral port of the sandbox's loopback,
// forwards each connection there to the socket, and points HTTP_PROXY
// and HTTPS_PROXY (both cases) of every command at it with NO_PROXY the
// loopback. With PerCommand the binary, run with BridgeArg, is the
// bridge instead: it does the same for one command, which it runs as its
// child, passing stdin, stdout, stderr and signals through and ending as
// the command ends. The proxy allows only Options.Proxy.Allow and
// reports each refusal to Options.Proxy.OnRefused. A program that embeds
// this package must dispatch BridgeArg to BridgeMain first thing in
// main, as internal/cli does (tests do it in TestMain), for the bridge
// and the fallback server.
//
// A command with RunOptions.ReadOnly runs in a second sandbox of the
// executor, started with the first such command, whose bwrap binds the
// root and the clone's .git read-only (Options.ReadOnly makes the
// executor's only sandbox so): what the policy let run because it reads
// cannot write there. The caches are read-only there too, with a GOCACHE
// of its own in its /tmp. It has a /tmp of its own.
//
// Options.Limits bound a run (limits.go): memory and processes through a
// cgroup both sandboxes start in, when the runtime may create one
// (cgroup_linux.go), and rlimits the command server sets on itself for
// every command to inherit; a sized /tmp; a disk guard (disk.go) that
// stops a command when the root and the .git grew past their bound. A
// command that met a limit gets a line saying so at the end of its
// output (notes.go).
//
// It is an adapter that wraps another adapter, executor/local, on purpose:
// the layering rule that keeps adapters apart names this one pair as its
// exception. Only internal/cli constructs one.
package sandbox
