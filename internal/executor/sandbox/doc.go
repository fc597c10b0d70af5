// Package sandbox is the Executor that runs every command inside
// bubblewrap (bwrap) on Linux: the host file system read-only, the
// workspace root read-write, a private /tmp, a fresh /proc and /dev, an
// empty home in place of the user's, the Bonsai data directory hidden,
// its own PID, IPC and UTS namespaces and, unless asked otherwise, no
// network. File operations are the local executor's, unchanged: they are
// already confined to the root through os.Root.
//
// Network modes: NetworkNone gives a network namespace with only a
// loopback and an empty /run, where the host daemons' unix sockets are;
// NetworkAll shares the host's network and /run; NetworkProxy gives a namespace
// of its own in which only an HTTP(S) proxy is reachable. For it, New
// starts the executor's own internal/netproxy server on a unix socket in
// a private 0700 directory (Close stops it and removes the directory).
// The socket and the bonsai binary (Options.Proxy.Bridge) are bound
// read-only under /run/bonsai in every sandbox, and the binary, run
// with BridgeArg, is the bridge: it listens on an ephemeral port of the
// sandbox's loopback, forwards each connection to the socket, points
// HTTP_PROXY and HTTPS_PROXY (both cases) at it with NO_PROXY the
// loopback, and runs the command as its child, passing stdin, stdout,
// stderr and signals through and ending as the command ends. The proxy
// allows only Options.Proxy.Allow and reports each refusal to
// Options.Proxy.OnRefused. A program that embeds this package must
// dispatch BridgeArg to BridgeMain first thing in main, as internal/cli
// does (tests do it in TestMain).
//
// It is an adapter that wraps another adapter, executor/local, on purpose:
// the layering rule that keeps adapters apart names this one pair as its
// exception. Only internal/cli constructs one.
package sandbox
