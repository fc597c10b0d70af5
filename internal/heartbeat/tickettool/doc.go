// Package tickettool holds the four ticket tools of docs/design.md §6 that an
// agent working a ticket has besides the coding tools: ticket_comment,
// ticket_ask, ticket_plan and ticket_move. The board rules are enforced in
// the tools: a refused call is a result with IsError that says what is
// missing, never a Go error.
//
// Each tool implements tool.Tool directly, like the coding tools of
// internal/tools; the agent loop validates their arguments and recovers
// their panics through tool.Checked.Call.
package tickettool
