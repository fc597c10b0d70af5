// Package heartbeat is one beat of Bonsai's heartbeat (docs/design.md §8): take
// the heartbeat lock, mark runs a dead beat left running as interrupted,
// pick one ticket per active project with plain SQL, run an agent on each
// picked ticket in its git worktree (projects in parallel, up to a limit),
// write the results back to the board, and release the lock.
//
// The package depends only on small interfaces it declares: the board store
// methods it calls, a WorkspaceProvider and an AgentRunner. A runner gets
// a Brief (what the run is for), not a prompt: it renders the brief for its
// own engine and reads the worktree's files itself. The CLI wires the
// concrete SQLite store, git workspaces, the process reaper and the
// in-process agent.
package heartbeat
