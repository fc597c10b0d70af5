// Package cli is the root of the bonsai command line: Main, the exit
// codes, the command tree, the commands that run Bonsai (up, serve,
// heartbeat, worker, run, mcp, status, store, doctor…) and the wiring of
// concrete types (the stores, model adapters, executors) into the core
// packages; the only package that wires them. The board and setup
// command families live in their own packages under internal/cmd and get
// what they need from here as a cmdkit.App and functions.
//
// Every command is a constructor taking the shared *app; there is no
// package-level command state, so Run can be called many times in one
// process (tests do).
package cli
