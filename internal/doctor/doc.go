// Package doctor holds the checks of `bonsai doctor`: each a small
// function from what the CLI gathered (a path, a file mode, a time, a
// number of free bytes) to a [Check] — its name, a status (ok, warn,
// fail, skip), what it found and, when it is not ok, the fix. It also
// renders checks for a terminal or a pipe and measures free disk space per
// operating system.
//
// Checks that need an adapter (the SQLite store, the model providers, the
// sandboxes) are run by internal/cli, which hands their outcome to the
// functions here or builds a Check itself; this package imports none of
// them.
package doctor
