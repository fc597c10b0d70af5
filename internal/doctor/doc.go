// Package doctor holds the checks of `bonsai doctor`: each a small
// function from what the CLI gathered (a path, a file mode, a time, a
// number of free bytes) to a [Check] — its name, a status (ok, warn,
// fail, skip), what it found and, when it is not ok, the fix. It also
// renders checks for a terminal or a pipe and measures free disk space per
// operating system.
//
// Checks that need an adapter (the SQLite and Postgres stores, the model
// providers, the sandboxes, the engines' CLIs) get it from internal/cli as
// a value, a function or a small interface: the store's read-only check
// ([Schema]), [ListModels], [EngineCLIs], whether the sandbox can run.
// This package imports none of them.
package doctor
