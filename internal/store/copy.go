package store

import (
	"context"
	"strings"
)

// Kind is how a column's values travel between stores: every store reads
// them as, and accepts them as, these Go types (nil for NULL).
type Kind int

// The kinds of column.
const (
	Text  Kind = iota // string
	Int               // int64
	Real              // float64
	Bool              // bool
	JSON              // string holding JSON; stores may reformat it
	Bytes             // []byte: a BLOB or bytea, never text
)

// Column is one copied column.
type Column struct {
	Name string
	Kind Kind
}

// Table is one table of the board as `bonsai store migrate` copies it.
type Table struct {
	Name    string
	Columns []Column
	// Ordered tables are read in the order their rows were written
	// (SQLite's rowid, Postgres's seq), and written in that order, so
	// rows of the same millisecond keep their order.
	Ordered bool
}

// CopyTables are the board's tables in the order a copy writes them, so
// each row's references exist before it. Derived data is not copied: the
// target's triggers rebuild it (ticket counts and queue, a ticket's newest
// human comment), and its migrations write the notification rules.
// Channels come after the events, so the target's notification trigger
// makes no new outbox rows for the copied events; the copied outbox rows
// are the notifications.
var CopyTables = []Table{
	{Name: "projects", Columns: cols("id slug name repo default_branch", Text, "active", Bool,
		"last_ticket_number created_at updated_at", Int, "take_backlog", Bool, "settings", JSON)},
	{Name: "tickets", Columns: cols("id project_id", Text, "number", Int, "title description", Text, "criteria", JSON,
		"plan state sub_state", Text, "priority", Int, "branch", Text, "created_at updated_at", Int)},
	{Name: "ticket_links", Columns: cols("ticket_id other_id kind", Text, "created_at", Int)},
	{Name: "variants", Columns: cols("ticket_id", Text, "round number", Int, "variant_id engine model", Text, "budget_usd", Real,
		"budget_tokens", Int, "state reason", Text, "created_at updated_at", Int)},
	{Name: "transcript_lines", Columns: cols("ticket_id", Text, "n", Int, "line", Text)},
	{Name: "comments", Ordered: true, Columns: cols("id ticket_id author_type author_name kind content", Text,
		"resolved", Bool, "created_at", Int)},
	{Name: "attachment_blobs", Columns: cols("sha256", Text, "size", Int, "data", Bytes)},
	{Name: "attachments", Columns: cols("id ticket_id comment_id name media_type", Text, "size", Int,
		"sha256 author_type author_name", Text, "created_at", Int)},
	{Name: "runs", Ordered: true, Columns: cols("id ticket_id", Text, "ticket_number", Int,
		"project_id task status session_key", Text, "started_at finished_at input_tokens output_tokens cache_read_tokens cache_write_tokens", Int,
		"cost_usd", Real, "error worker_id progress", Text, "stop_requested_at", Int, "stop_requested_by", Text,
		"reasoning_tokens", Int, "model engine", Text, "turns", Int)},
	{Name: "approvals", Ordered: true, Columns: cols("id project_id ticket_id run_id command rule reason pattern status", Text,
		"always used", Bool, "note decided_by", Text, "told", Bool, "comment_id", Text, "created_at decided_at", Int)},
	{Name: "landings", Columns: cols("ticket_id project_id mode branch forge", Text, "pr_number", Int,
		"pr_url pr_state checks head_sha etag review_cursor landed_commit", Text, "landed_at", Int, "error", Text, "updated_at", Int)},
	{Name: "reviews", Columns: cols("ticket_id project_id base tip", Text, "recorded_at", Int)},
	{Name: "tracker_syncs", Columns: cols("project_id tracker query validator error", Text, "failures updated_at", Int)},
	{Name: "issue_links", Columns: cols("ticket_id project_id tracker issue_id issue_ref url comment_cursor seen mirrored status", Text,
		"since updated_at", Int)},
	{Name: "issue_comments", Columns: cols("ticket_id direction external_id comment_id", Text, "created_at", Int)},
	{Name: "tracker_limits", Columns: cols("project_id tracker", Text, "limited_until", Int, "detail login token_sum", Text, "updated_at", Int)},
	{Name: "hooks", Columns: cols("id name project_id scheme header secret action target", Text, "events conditions", JSON,
		"title description", Text, "criteria", JSON, "priority", Int, "start_state", Text, "created_at updated_at", Int)},
	{Name: "hook_deliveries", Columns: cols("id", Int, "hook_id delivery_id event", Text, "status", Int, "outcome detail", Text,
		"ticket size received_at finished_at", Int)},
	{Name: "schedules", Columns: cols("id project_id name kind expr timezone", Text, "anchor", Int, "title description", Text,
		"criteria", JSON, "priority", Int, "start_state pre_check overlap", Text, "paused", Bool, "next_fire failures", Int,
		"last_error last_ticket_id created_by", Text, "created_at updated_at", Int)},
	{Name: "schedule_firings", Columns: cols("id", Int, "schedule_id", Text, "due_at fired_at", Int, "outcome ticket_id detail", Text)},
	{Name: "events", Columns: cols("id", Int, "type project_id ticket_id actor", Text, "data", JSON, "created_at", Int)},
	{Name: "notify_channels", Columns: cols("id name kind project_id", Text, "kinds settings", JSON, "created_at", Int)},
	{Name: "notify_outbox", Columns: cols("id", Int, "channel_id", Text, "event_id", Int, "kind", Text, "payload", JSON,
		"status", Text, "attempts next_at", Int, "lease_owner", Text, "lease_until", Int, "last_error", Text, "created_at settled_at", Int)},
	{Name: "notify_blockers", Columns: cols("project_id cause", Text, "since", Int)},
}

// DerivedTables and DerivedColumns are what a copy leaves to the target's
// triggers and migrations (or what a store keeps for itself). A store
// whose schema holds a table or column in neither these nor CopyTables
// has data a copy would lose, and the copy refuses to start.
var (
	DerivedTables = []string{"ticket_counts", "ticket_queue", "notify_rules", "bonsai_schema", "sqlite_sequence",
		"leases",          // a board is copied with no worker running: no lease to keep
		"transcript_live", // nor a message being streamed
		"workers"}         // the target's workers record themselves at their next beat
	DerivedColumns = []string{"tickets.last_human_comment_at", "tickets.pick_class", "tickets.pick_key",
		"tickets.queue_class", "tickets.queue_key", "comments.seq", "runs.seq", "approvals.seq"}
)

// Names returns the names of t's columns.
func (t Table) Names() []string {
	names := make([]string, len(t.Columns))
	for i, c := range t.Columns {
		names[i] = c.Name
	}
	return names
}

// cols builds a column list from pairs of space-separated names and
// their kind.
func cols(pairs ...any) []Column {
	var out []Column
	for i := 0; i+1 < len(pairs); i += 2 {
		for _, n := range strings.Fields(pairs[i].(string)) {
			out = append(out, Column{Name: n, Kind: pairs[i+1].(Kind)})
		}
	}
	return out
}

// Copier is what a store offers `bonsai store migrate`: the board's rows
// table by table, and a way to write them into an empty board.
type Copier interface {
	// Schema lists the store's tables and their columns.
	Schema(ctx context.Context) (map[string][]string, error)
	// ReadTable calls each with every row of t, values by t.Columns'
	// kinds; an Ordered table in the order its rows were written. The
	// slice is reused between calls.
	ReadTable(ctx context.Context, t Table, each func(row []any) error) error
	// WriteTables writes rows into the store in one transaction: read
	// calls put for every row of every table, in CopyTables' order. The
	// store must hold no board yet (no project, no event), else ECONFLICT.
	WriteTables(ctx context.Context, read func(put func(t Table, row []any) error) error) error
}
