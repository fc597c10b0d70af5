// Package seatbelt is the Executor that runs every command under macOS's
// sandbox-exec with a generated Seatbelt (SBPL) profile giving the rules of
// the Linux bubblewrap sandbox (executor/sandbox): the host file system
// readable but not writable; the workspace root, the per-project caches
// and a private temporary directory writable; the user's home, the Bonsai
// data directory, the runtime's temporary directory and Options.Hide
// unreadable; the clone's .git writable where a commit writes but its
// config, hooks and info read-only; and no network, all of it, or only a
// proxy on localhost. File operations are the local executor's, unchanged:
// they are already confined to the root through os.Root.
//
// Profile is a pure function, so its output has golden tests on every
// system; the Executor compiles everywhere but New refuses to open one
// anywhere but macOS.
//
// Like executor/sandbox it is an adapter that wraps another adapter,
// executor/local, on purpose: the layering rule that keeps adapters apart
// names these pairs as its exceptions. Only internal/cli constructs one.
package seatbelt
