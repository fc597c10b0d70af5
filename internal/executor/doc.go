// Package executor is the boundary through which agent code reaches the
// filesystem and runs processes: every path is resolved inside one workspace
// root, and every command gets a clean environment.
//
// Executor is the interface; Local is the implementation that works directly
// on the host, checking every path. Sandboxed and container executors come
// later and must pass the contract suite in package executortest.
package executor
