// Package layering holds no code: its test keeps the dependency rules of
// DESIGN.md §10 — the board imports only the standard library, adapters
// never import each other, and core packages never import adapters.
package layering
