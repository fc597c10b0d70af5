package tracker_test

import (
	"context"
	"strconv"
	"strings"
	"testing"

	"github.com/bonsai-run/bonsai/internal/tracker"
)

// cycleFake is one tracker and what people do on it.
type cycleFake struct {
	tr       tracker.Tracker
	query    tracker.Query
	open     func(title, body string) string // returns the issue's reference
	answer   func(ref, body string)          // a maintainer comments
	outsider func(ref, body string)          // someone without access comments
	close    func(ref string)                // closed by hand
}

func cycleFakes(t *testing.T) map[string]cycleFake {
	out := map[string]cycleFake{}
	for _, k := range kinds {
		srv, tr := fake(t, k)
		srv.Outsider("mallory")
		out[string(k)] = cycleFake{tr: tr, query: tracker.Query{Labels: []string{"bonsai"}},
			open: func(title, body string) string {
				return itoa(srv.OpenIssue(owner, name, owner, title, body, "bonsai"))
			},
			answer:   func(ref, body string) { srv.CommentIssue(owner, name, atoi(ref), "carol", body) },
			outsider: func(ref, body string) { srv.CommentIssue(owner, name, atoi(ref), "mallory", body) },
			close:    func(ref string) { srv.CloseIssue(owner, name, atoi(ref)) },
		}
	}
	ln, lt := fakeLinear(t)
	out["linear"] = cycleFake{tr: lt, query: tracker.Query{Team: "ENG", States: []string{"Todo", "In Progress", "In Review"}},
		open:     func(title, body string) string { return ln.OpenIssue("ENG", "Todo", "u-carol", title, body) },
		answer:   func(ref, body string) { ln.Comment(ref, "u-carol", body) },
		outsider: func(ref, body string) { ln.Comment(ref, "u-mallory", body) },
		close:    func(ref string) { ln.Trash(ref) },
	}
	jr, jt := fakeJira(t)
	out["jira"] = cycleFake{tr: jt, query: tracker.Query{JQL: "project = PROJ AND labels = bonsai AND statusCategory != Done"},
		open: func(title, body string) string {
			return jr.OpenIssue("PROJ", "To Do", "acc-carol", title, adf(t, body), "bonsai")
		},
		answer:   func(ref, body string) { jr.Comment(ref, "acc-carol", body) },
		outsider: func(ref, body string) { jr.Comment(ref, "acc-mallory", body) },
		close:    func(ref string) { jr.DeleteIssue(ref) },
	}
	return out
}

func atoi(s string) int {
	n, _ := strconv.Atoi(s)
	return n
}

// TestCycle runs, on each tracker, what the heartbeat will: a labelled
// issue is listed with its checklist; the agent's question is posted and
// read back as Bonsai's; a maintainer's answer arrives after the cursor
// as a writer's, an outsider's as not; the ticket's states are mirrored;
// the issue closed (trashed, deleted) by hand leaves the list and says so.
func TestCycle(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	for kind, f := range cycleFakes(t) {
		t.Run(kind, func(t *testing.T) {
			ref := f.open("Greet the world", "Say hello.\n\n- [ ] prints hello\n- [ ] has a test")
			l, err := f.tr.List(ctx, f.query, "")
			if err != nil || len(l.Issues) != 1 || l.Issues[0].Ref != ref || len(tracker.Checklist(l.Issues[0].Body)) != 2 {
				t.Fatalf("list: %+v, %v", l.Issues, err)
			}
			is := l.Issues[0]
			if err := f.tr.Mirror(ctx, is, "IN_PROGRESS"); err != nil {
				t.Fatal(err)
			}
			_, cur, err := f.tr.Comments(ctx, ref, "")
			if err != nil {
				t.Fatal(err)
			}
			if _, err := f.tr.Comment(ctx, ref, "**Bonsai** asks: which greeting?"); err != nil {
				t.Fatal(err)
			}
			f.outsider(ref, "use 'yo'")
			f.answer(ref, "Hello, world.")
			cs, _, err := f.tr.Comments(ctx, ref, cur)
			if err != nil || len(cs) != 3 {
				t.Fatalf("comments: %+v, %v", cs, err)
			}
			if !cs[0].Ours || cs[1].Ours || cs[1].Writer || cs[2].Ours || !cs[2].Writer || !strings.Contains(cs[2].Body, "Hello, world.") {
				t.Fatalf("ours, the outsider's, the maintainer's: %+v", cs)
			}
			if is, err = f.tr.Issue(ctx, ref); err != nil {
				t.Fatal(err)
			}
			if err := f.tr.Mirror(ctx, is, "VERIFICATION"); err != nil {
				t.Fatal(err)
			}
			f.close(ref)
			after, err := f.tr.List(ctx, f.query, l.Validator)
			if err != nil || after.NotModified || len(after.Issues) != 0 {
				t.Fatalf("after closing: %+v, %v", after, err)
			}
			is, err = f.tr.Issue(ctx, ref)
			if gone := tracker.ReasonOf(err); err != nil && gone != tracker.Gone && gone != tracker.NotFound || err == nil && is.State != tracker.Closed {
				t.Fatalf("closed issue: %+v, %v", is, err)
			}
		})
	}
}
