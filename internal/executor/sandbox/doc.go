// Package sandbox is the Executor that runs every command inside
// bubblewrap (bwrap) on Linux: the host file system read-only, the
// workspace root read-write, a private /tmp, a fresh /proc and /dev, an
// empty home in place of the user's, the Bonsai data directory hidden,
// its own PID, IPC and UTS namespaces and, unless asked otherwise, no
// network. File operations are the local executor's, unchanged: they are
// already confined to the root through os.Root.
//
// It is an adapter that wraps another adapter, executor/local, on purpose:
// the layering rule that keeps adapters apart names this one pair as its
// exception. Only internal/cli constructs one.
package sandbox
