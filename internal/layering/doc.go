// Package layering holds no code: its tests keep the dependency rules of
// docs/design.md §10 and docs/architecture.md. The board imports only a
// short list of standard packages, adapters never import each other, core
// packages never import adapters, and every package imports only what
// architecture.md's "may import" column says. Each rule is a pure function
// over an import graph; the tests run it on the module's real graph from
// `go list`, and on made-up graphs that break it, so every rule can fail.
// One more test keeps the methods of each type of internal/heartbeat and
// internal/engine in at most three files: a type whose methods spread
// further has grown concerns that want types of their own; another keeps
// their functions (and agentjob's) at most 100 lines long.
package layering
