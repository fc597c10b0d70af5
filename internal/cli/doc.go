// Package cli implements the bonsai command line. It is the only package
// that wires concrete types (the SQLite store, model adapters, executors)
// into the core packages.
//
// Every command is a constructor in its own file taking the shared *app;
// there is no package-level command state, so Run can be called many times
// in one process (tests do).
package cli
