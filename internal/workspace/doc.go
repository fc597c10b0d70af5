// Package workspace is Bonsai's WorkspaceProvider: it turns a project and a
// ticket into a git workspace the agent works in.
//
// Each project is cloned once into projects/<slug> (from a local path or a
// URL); each ticket gets its own git worktree at worktrees/<slug>/<n> on the
// branch bonsai/<slug>/<n>-<slug of the title>, started from the project's default
// branch after a fetch. Every git command runs through an executor.Executor
// with an argv, never a shell. Credentials for clone, fetch and push come
// from the runtime's environment and are passed only to those commands; the
// agent's executor never sees them. The clone's config is shared with the
// agent's worktrees, so fetch and push run no hooks, name the project's URL
// rather than a remote, and refuse to run while that config holds settings
// that would send them elsewhere or run a program (UnsafeConfigError).
package workspace
