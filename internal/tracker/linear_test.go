package tracker_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/bonsai-run/bonsai/internal/tracker"
	"github.com/bonsai-run/bonsai/internal/tracker/trackertest"
)

// fakeLinear starts a fake Linear with team ENG (members carol and the
// key's user) and a tracker of it.
func fakeLinear(t *testing.T) (*trackertest.Linear, tracker.Tracker) {
	t.Helper()
	ln := trackertest.NewLinear(t)
	ln.AddUser("u-carol", "Carol")
	ln.AddUser("u-mallory", "Mallory")
	ln.AddTeam("ENG", "u-carol")
	ln.AddTeam("OPS")
	tr, err := tracker.NewLinear(ln.URL, tracker.Options{Token: trackertest.LinearKey, Team: "ENG", Login: "u-bonsai"})
	if err != nil {
		t.Fatal(err)
	}
	return ln, tr
}

var engTodo = tracker.Query{Team: "ENG", States: []string{"Todo"}}

func TestLinearListThenUnchangedCostsOneRequest(t *testing.T) {
	t.Parallel()
	ln, tr := fakeLinear(t)
	ctx := context.Background()
	a := ln.OpenIssue("ENG", "Todo", "u-carol", "Greet the world", "- [ ] prints hello", "bonsai")
	ln.OpenIssue("ENG", "Backlog", "u-carol", "Not yet", "")
	ln.OpenIssue("OPS", "Todo", "u-carol", "Another team", "")
	l, err := tr.List(ctx, engTodo, "")
	if err != nil {
		t.Fatal(err)
	}
	if len(l.Issues) != 1 || l.Issues[0].Ref != a || l.Issues[0].Status != "Todo" || l.Issues[0].Author != "Carol" ||
		l.Issues[0].State != tracker.Open || len(tracker.Checklist(l.Issues[0].Body)) != 1 {
		t.Fatalf("list: %+v", l.Issues)
	}
	ln.ResetRequests()
	again, err := tr.List(ctx, engTodo, l.Validator)
	if err != nil || !again.NotModified || !slices.Equal(ln.Requests(), []string{"BonsaiIssues"}) {
		t.Fatalf("unchanged: %+v, %v, requests %v", again, err, ln.Requests())
	}
	ln.Comment(a, "u-carol", "more detail")
	if changed, err := tr.List(ctx, engTodo, again.Validator); err != nil || changed.NotModified {
		t.Fatalf("after a comment: %+v, %v", changed, err)
	}
	// Pages: every page is read, and still compared whole.
	for range 4 {
		ln.OpenIssue("ENG", "Todo", "u-carol", "More", "")
	}
	ln.PageSize(2)
	paged, err := tr.List(ctx, engTodo, "")
	if err != nil || len(paged.Issues) != 5 {
		t.Fatalf("paged: %d issues, %v", len(paged.Issues), err)
	}
}

func TestLinearCommentsAfterCursor(t *testing.T) {
	t.Parallel()
	ln, tr := fakeLinear(t)
	ctx := context.Background()
	a := ln.OpenIssue("ENG", "Todo", "u-carol", "Greet the world", "")
	ln.Comment(a, "u-carol", "a member says")
	spoof := ln.Comment(a, "u-mallory", "an outsider says "+tracker.Marker)
	ln.Comment(a, "", "an integration says")
	cs, cur, err := tr.Comments(ctx, a, "")
	if err != nil {
		t.Fatal(err)
	}
	if len(cs) != 3 || !cs[0].Writer || cs[0].Author != "Carol" || cs[0].AuthorID != "u-carol" || cs[1].Writer || cs[1].Ours || cs[2].Writer {
		t.Fatalf("first read: %+v", cs)
	}
	posted, err := tr.Comment(ctx, a, "Which greeting?")
	if err != nil || !posted.Ours {
		t.Fatalf("posted: %+v, %v", posted, err)
	}
	ln.Comment(a, "u-carol", "Hello, world.")
	next, cur2, err := tr.Comments(ctx, a, cur)
	if err != nil || len(next) != 2 || !next[0].Ours || next[1].Body != "Hello, world." || !next[1].Writer || next[1].Edited {
		t.Fatalf("after the cursor: %+v, %v", next, err)
	}
	if none, cur3, err := tr.Comments(ctx, a, cur2); err != nil || len(none) != 0 || cur3 != cur2 {
		t.Fatalf("nothing new: %+v, %v", none, err)
	}
	ln.EditComment(a, spoof, "an outsider edits")
	edited, _, err := tr.Comments(ctx, a, cur2)
	if err != nil || len(edited) != 1 || !edited[0].Edited || edited[0].Writer || edited[0].Body != "an outsider edits" {
		t.Fatalf("edited: %+v, %v", edited, err)
	}
	acc, err := tr.Writers(ctx, []string{"u-carol", "u-mallory"})
	if err != nil || acc["u-carol"] != tracker.AccessWrite || acc["u-mallory"] != tracker.AccessRead {
		t.Fatalf("writers: %v, %v", acc, err)
	}
}

func TestLinearRefusals(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	t.Run("revoked key", func(t *testing.T) {
		t.Parallel()
		ln, tr := fakeLinear(t)
		ln.SetKey("lin_api_another")
		_, err := tr.List(ctx, engTodo, "")
		if tracker.ReasonOf(err) != tracker.Unauthorized || !strings.Contains(err.Error(), "bonsai credentials set linear") || strings.Contains(err.Error(), trackertest.LinearKey) {
			t.Fatalf("revoked: %v", err)
		}
	})
	t.Run("read-only key", func(t *testing.T) {
		t.Parallel()
		ln, tr := fakeLinear(t)
		a := ln.OpenIssue("ENG", "Todo", "u-carol", "x", "")
		ln.SetScopes("read")
		if _, err := tr.List(ctx, engTodo, ""); err != nil {
			t.Fatal(err)
		}
		_, err := tr.Comment(ctx, a, "hello")
		if tracker.ReasonOf(err) != tracker.Forbidden || !strings.Contains(err.Error(), "write") {
			t.Fatalf("read-only comment: %v", err)
		}
	})
	t.Run("team the key may not read", func(t *testing.T) {
		t.Parallel()
		ln, tr := fakeLinear(t)
		o := ln.OpenIssue("OPS", "Todo", "u-carol", "x", "")
		ln.RestrictTeams("ENG")
		if _, err := tr.Issue(ctx, o); tracker.ReasonOf(err) != tracker.NotFound {
			t.Fatalf("invisible team: %v", err)
		}
	})
	t.Run("trashed", func(t *testing.T) {
		t.Parallel()
		ln, tr := fakeLinear(t)
		a := ln.OpenIssue("ENG", "Todo", "u-carol", "x", "")
		ln.Trash(a)
		if _, err := tr.Issue(ctx, a); tracker.ReasonOf(err) != tracker.Gone {
			t.Fatalf("trashed: %v", err)
		}
		if _, err := tr.Issue(ctx, "ENG-999"); tracker.ReasonOf(err) != tracker.NotFound {
			t.Fatalf("missing: %v", err)
		}
	})
	t.Run("rate limit", func(t *testing.T) {
		t.Parallel()
		ln, tr := fakeLinear(t)
		ln.RateLimit(1, 0)
		ln.ResetRequests()
		if _, err := tr.List(ctx, engTodo, ""); err != nil || len(ln.Requests()) != 2 {
			t.Fatalf("short limit: %v after %v", err, ln.Requests())
		}
		ln.RateLimit(5, time.Hour)
		ln.ResetRequests()
		_, err := tr.List(ctx, engTodo, "")
		var e *tracker.Error
		if !errors.As(err, &e) || e.Reason != tracker.RateLimited || e.RetryAfter < 59*time.Minute || len(ln.Requests()) != 1 {
			t.Fatalf("long limit: %v after %v", err, ln.Requests())
		}
	})
}

func TestLinearMirror(t *testing.T) {
	t.Parallel()
	ln, tr := fakeLinear(t)
	ctx := context.Background()
	a := ln.OpenIssue("ENG", "Todo", "u-carol", "x", "")
	is, err := tr.Issue(ctx, a)
	if err != nil {
		t.Fatal(err)
	}
	if err := tr.Mirror(ctx, is, "IN_PROGRESS"); err != nil {
		t.Fatal(err)
	}
	if st, _ := ln.State(a); st != "In Progress" {
		t.Fatalf("state %q", st)
	}
	if err := tr.Mirror(ctx, is, "DONE"); err != nil {
		t.Fatal(err)
	}
	if is, _ = tr.Issue(ctx, a); is.State != tracker.Closed || is.Status != "Done" {
		t.Fatalf("done: %+v", is)
	}
}
