// Package local is the Executor that works directly on the host: every
// path is resolved inside the workspace root through os.Root, commands run
// as the user in their own process group with a clean environment, and on
// Linux they die with the runtime and carry a mark that lets a later beat
// find and kill what a dead one left running.
//
// It is an adapter: only internal/cli constructs one and hands it to the
// packages that need an executor.Executor.
package local
