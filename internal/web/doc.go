// Package web serves Bonsai's web UI and its JSON API (docs/design.md §9).
//
// Pages are rendered on the server with html/template; htmx, its SSE
// extension and SortableJS are vendored under static/vendor and embedded, so
// building the binary needs only Go. Every route is declared in routes.go;
// handlers return an error that one function (errors.go) maps to an HTTP
// status, a status page or a JSON error. The API's shapes mirror the CLI's
// --json output (views.go).
//
// The server never talks to an agent: the heartbeat is another process. It
// learns about changes by following the store's append-only event log with a
// cursor (feed.go) and fans them out to the browsers over Server-Sent
// Events (sse.go). From the same events it keeps what the board shows
// without querying per ticket: which tickets have an agent running and what
// their runs cost (runindex.go), and each project's cards (cards.go). A
// running agent's transcript is followed by its file size (activity.go),
// and the message it is streaming by the side file the heartbeat writes
// next to it (live.go).
//
// It depends on the small Store interface declared in store.go, not on a
// concrete store; internal/cli wires the SQLite store, the git diff and the
// heartbeat's state in.
package web
