// Package executor is the boundary through which agent code reaches the
// filesystem and runs processes: every path is resolved inside one workspace
// root, and every command gets a clean environment.
//
// This package holds the Executor interface, its option and result types,
// its errors and the environment policy every implementation applies. The
// implementations are adapters in their own packages: local (on the host,
// path-checked), sandbox (commands inside bubblewrap); a container executor
// comes later. Each must
// pass the contract suite in package executortest.
package executor
