package storetest

import (
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/store"
)

// newProject returns a valid project to create.
func newProject(slug string) board.Project {
	return board.Project{Slug: slug, Name: "Project " + slug, Repo: "/src/" + slug, DefaultBranch: "main"}
}

// mustProject creates a project or fails the test.
func mustProject(t *testing.T, s store.Store, slug string) board.Project {
	t.Helper()
	p, err := s.CreateProject(t.Context(), newProject(slug))
	if err != nil {
		t.Fatalf("CreateProject(%s): %v", slug, err)
	}
	return p
}

// mustTicket creates a ticket in BACKLOG (or t.State) or fails the test.
func mustTicket(t *testing.T, s store.Store, tk board.Ticket) board.Ticket {
	t.Helper()
	if tk.Title == "" {
		tk.Title = "a ticket"
	}
	got, err := s.CreateTicket(t.Context(), tk, board.Human)
	if err != nil {
		t.Fatalf("CreateTicket(%+v): %v", tk, err)
	}
	return got
}

// mustMove moves a ticket or fails the test.
func mustMove(t *testing.T, s store.Store, ref board.Ref, to board.State, actor board.Actor) board.Ticket {
	t.Helper()
	req := board.MoveRequest{To: to, Actor: actor}
	if to == board.InProgress && actor == board.Human {
		req.Feedback = "please change it" // needed only when coming from VERIFICATION
	}
	got, err := s.MoveTicket(t.Context(), ref, req, "tester")
	if err != nil {
		t.Fatalf("MoveTicket(%s → %s as %s): %v", ref, to, actor, err)
	}
	return got
}

// ticketIn creates a ticket in project slug and brings it to state along
// allowed moves.
func ticketIn(t *testing.T, s store.Store, slug string, state board.State) board.Ticket {
	t.Helper()
	tk := mustTicket(t, s, board.Ticket{ProjectSlug: slug, Title: "ticket in " + string(state), Priority: 2})
	path := map[board.State][]struct {
		to    board.State
		actor board.Actor
	}{
		board.Backlog:      nil,
		board.Research:     {{board.Research, board.Human}},
		board.InProgress:   {{board.InProgress, board.Human}},
		board.Verification: {{board.InProgress, board.Human}, {board.Verification, board.Agent}},
		board.Done:         {{board.InProgress, board.Human}, {board.Verification, board.Agent}, {board.Done, board.Human}},
	}[state]
	for _, step := range path {
		tk = mustMove(t, s, tk.Ref(), step.to, step.actor)
	}
	return tk
}

// mustGet reads a ticket or fails the test.
func mustGet(t *testing.T, s store.Store, ref board.Ref) board.Ticket {
	t.Helper()
	got, err := s.Ticket(t.Context(), ref)
	if err != nil {
		t.Fatalf("Ticket(%s): %v", ref, err)
	}
	return got
}

// mustComment adds a comment or fails the test.
func mustComment(t *testing.T, s store.Store, ref board.Ref, author board.Actor, kind board.CommentKind, text string) board.Comment {
	t.Helper()
	c, err := s.AddComment(t.Context(), ref, board.Comment{AuthorType: author, AuthorName: string(author) + "-name", Kind: kind, Content: text})
	if err != nil {
		t.Fatalf("AddComment(%s): %v", ref, err)
	}
	return c
}

// lastEventID returns the ID of the newest event, 0 when there is none.
func lastEventID(t *testing.T, s store.Store) int64 {
	t.Helper()
	var last int64
	for {
		es, err := s.Events(t.Context(), last, 1000)
		if err != nil {
			t.Fatalf("Events: %v", err)
		}
		if len(es) == 0 {
			return last
		}
		last = es[len(es)-1].ID
	}
}

// eventsAfter returns every event after id.
func eventsAfter(t *testing.T, s store.Store, id int64) []board.Event {
	t.Helper()
	var all []board.Event
	for {
		es, err := s.Events(t.Context(), id, 1000)
		if err != nil {
			t.Fatalf("Events: %v", err)
		}
		if len(es) == 0 {
			return all
		}
		all = append(all, es...)
		id = es[len(es)-1].ID
	}
}

// eventTypes returns the types of es, in order.
func eventTypes(es []board.Event) []board.EventType {
	ts := []board.EventType{}
	for _, e := range es {
		ts = append(ts, e.Type)
	}
	return ts
}

// wantEvents checks that exactly the given event types were written after id.
func wantEvents(t *testing.T, s store.Store, after int64, want ...board.EventType) []board.Event {
	t.Helper()
	es := eventsAfter(t, s, after)
	if want == nil {
		want = []board.EventType{}
	}
	if got := eventTypes(es); !reflect.DeepEqual(got, want) {
		t.Errorf("events written = %v, want %v", got, want)
	}
	return es
}

// wantCode checks that err carries the board error code and, unless msg is
// empty, that its message contains msg.
func wantCode(t *testing.T, err error, code, msg string) {
	t.Helper()
	if err == nil {
		t.Errorf("err = nil, want a %s error", code)
		return
	}
	if got := board.ErrorCode(err); got != code {
		t.Errorf("code of %q = %s, want %s", err, got, code)
	}
	if msg != "" && !strings.Contains(err.Error(), msg) {
		t.Errorf("error %q does not say %q", err, msg)
	}
}

// wantRule checks that err is a *board.RuleError equal to what
// board.CheckMove says for the move.
func wantRule(t *testing.T, err error, tk board.Ticket, req board.MoveRequest) {
	t.Helper()
	var re *board.RuleError
	if !errors.As(err, &re) {
		t.Errorf("err = %v (%T), want a *board.RuleError", err, err)
		return
	}
	if want := board.CheckMove(tk, req); err.Error() != want.Error() {
		t.Errorf("error = %q, want %q", err, want)
	}
	if board.ErrorCode(err) != board.EREFUSED {
		t.Errorf("code = %s, want %s", board.ErrorCode(err), board.EREFUSED)
	}
}

// norm returns v with its times in UTC and without monotonic readings, so
// values that are the same instant compare equal with reflect.DeepEqual.
func norm[T any](v T) T {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	var out T
	if err := json.Unmarshal(b, &out); err != nil {
		panic(err)
	}
	return out
}

// same fails the test unless got and want are equal after norm.
func same[T any](t *testing.T, what string, got, want T) {
	t.Helper()
	if !reflect.DeepEqual(norm(got), norm(want)) {
		t.Errorf("%s:\n got  %+v\n want %+v", what, got, want)
	}
}

// wantRecent checks that ts is a plausible store timestamp: set, and not in
// the future beyond clock granularity.
func wantRecent(t *testing.T, what string, ts time.Time) {
	t.Helper()
	if ts.IsZero() {
		t.Errorf("%s is not set", what)
	}
	if ts.After(time.Now().Add(time.Second)) {
		t.Errorf("%s = %v is in the future", what, ts)
	}
	if ts.Location() != time.UTC {
		t.Errorf("%s = %v is not in UTC", what, ts)
	}
	if ts.Round(time.Millisecond) != ts {
		t.Errorf("%s = %v has more than millisecond precision; stores keep milliseconds", what, ts)
	}
}
