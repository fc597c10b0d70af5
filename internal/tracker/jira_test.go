package tracker_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/bonsai-run/bonsai/internal/tracker"
	"github.com/bonsai-run/bonsai/internal/tracker/trackertest"
)

// fakeJira starts a fake Jira with project PROJ, where Carol may edit
// issues and Mallory may only comment, and a tracker of it.
func fakeJira(t *testing.T) (*trackertest.Jira, tracker.Tracker) {
	t.Helper()
	j := trackertest.NewJira(t)
	j.AddProject("PROJ")
	j.AddProject("OTHER")
	j.AddUser("PROJ", "acc-carol", "Carol", trackertest.Browse, trackertest.AddComment, trackertest.Edit)
	j.AddUser("PROJ", "acc-mallory", "Mallory", trackertest.Browse, trackertest.AddComment)
	tr, err := tracker.NewJira(j.URL, tracker.Options{Email: trackertest.JiraEmail, Token: trackertest.JiraToken, Login: trackertest.JiraAccount, Team: "PROJ"})
	if err != nil {
		t.Fatal(err)
	}
	return j, tr
}

var projBonsai = tracker.Query{JQL: `project = PROJ AND labels = bonsai AND statusCategory != Done ORDER BY updated DESC`}

func adf(t *testing.T, md string) json.RawMessage {
	b, err := json.Marshal(tracker.MarkdownToADF(md))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestJiraListThenUnchangedCostsOneRequest(t *testing.T) {
	t.Parallel()
	j, tr := fakeJira(t)
	ctx := context.Background()
	a := j.OpenIssue("PROJ", "To Do", "acc-carol", "Greet the world", adf(t, "Say **hello**.\n\n- [ ] prints hello\n- [x] has a test"), "bonsai")
	j.OpenIssue("PROJ", "To Do", "acc-carol", "Not labelled", nil)
	j.OpenIssue("PROJ", "Done", "acc-carol", "Done already", nil, "bonsai")
	j.OpenIssue("OTHER", "To Do", "acc-carol", "Other project", nil, "bonsai")
	l, err := tr.List(ctx, projBonsai, "")
	if err != nil {
		t.Fatal(err)
	}
	if len(l.Issues) != 1 || l.Issues[0].Ref != a || l.Issues[0].Status != "To Do" || l.Issues[0].Author != "Carol" || !strings.HasSuffix(l.Issues[0].URL, "/browse/"+a) {
		t.Fatalf("list: %+v", l.Issues)
	}
	if cs := tracker.Checklist(l.Issues[0].Body); len(cs) != 2 || !cs[1].Done || !strings.HasPrefix(l.Issues[0].Body, "Say **hello**.") {
		t.Fatalf("description %q → %+v", l.Issues[0].Body, cs)
	}
	j.ResetRequests()
	again, err := tr.List(ctx, projBonsai, l.Validator)
	if err != nil || !again.NotModified || len(j.Requests()) != 1 {
		t.Fatalf("unchanged: %+v, %v, %v", again, err, j.Requests())
	}
	j.Comment(a, "acc-carol", "more")
	if changed, err := tr.List(ctx, projBonsai, again.Validator); err != nil || changed.NotModified {
		t.Fatalf("after a comment: %+v, %v", changed, err)
	}
	if _, err := tr.List(ctx, tracker.Query{JQL: "nonsense = 1"}, ""); tracker.ReasonOf(err) != tracker.Invalid || !strings.Contains(err.Error(), "nonsense") {
		t.Fatalf("bad JQL: %v", err)
	}
	for range 3 {
		j.OpenIssue("PROJ", "To Do", "acc-carol", "More", nil, "bonsai")
	}
	j.PageSize(2)
	if paged, err := tr.List(ctx, projBonsai, ""); err != nil || len(paged.Issues) != 4 {
		t.Fatalf("paged: %+v, %v", paged, err)
	}
}

func TestJiraCommentsAfterCursor(t *testing.T) {
	t.Parallel()
	j, tr := fakeJira(t)
	ctx := context.Background()
	a := j.OpenIssue("PROJ", "To Do", "acc-carol", "Greet", nil, "bonsai")
	j.Comment(a, "acc-carol", "an editor says")
	first := j.Comment(a, "acc-mallory", "a commenter says")
	cs, cur, err := tr.Comments(ctx, a, "")
	if err != nil || len(cs) != 2 || !cs[0].Writer || cs[0].Author != "Carol" || cs[1].Writer || cs[1].Body != "a commenter says" {
		t.Fatalf("first read: %+v, %v", cs, err)
	}
	posted, err := tr.Comment(ctx, a, "**Bonsai** asks: which greeting?\n\n- [ ] hello")
	if err != nil || !posted.Ours {
		t.Fatalf("posted: %+v, %v", posted, err)
	}
	if _, bodies := j.Status(a); !strings.Contains(bodies[2], `"type":"taskItem"`) || strings.Contains(bodies[2], "bonsai:comment") {
		t.Fatalf("posted as ADF without a visible marker: %s", bodies[2])
	}
	j.Comment(a, "acc-carol", "Hello, world.")
	next, cur2, err := tr.Comments(ctx, a, cur)
	if err != nil || len(next) != 2 || !next[0].Ours || next[0].Body != "**Bonsai** asks: which greeting?\n\n- [ ] hello" || next[1].Ours || !next[1].Writer {
		t.Fatalf("after the cursor: %+v, %v", next, err)
	}
	j.EditComment(a, first, "edited")
	edited, _, err := tr.Comments(ctx, a, cur2)
	if err != nil || len(edited) != 1 || !edited[0].Edited || edited[0].Body != "edited" || edited[0].Writer {
		t.Fatalf("edited: %+v, %v", edited, err)
	}
	acc, err := tr.Writers(ctx, []string{"acc-carol", "acc-mallory", trackertest.JiraAccount, "acc-nobody"})
	if err != nil || acc["acc-carol"] != tracker.AccessWrite || acc["acc-mallory"] != tracker.AccessRead || acc[trackertest.JiraAccount] != tracker.AccessWrite || acc["acc-nobody"] != tracker.AccessRead {
		t.Fatalf("writers: %v, %v", acc, err)
	}
}

func TestJiraRefusals(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	t.Run("revoked token", func(t *testing.T) {
		t.Parallel()
		j, tr := fakeJira(t)
		j.SetToken("another")
		_, err := tr.List(ctx, projBonsai, "")
		if tracker.ReasonOf(err) != tracker.Unauthorized || !strings.Contains(err.Error(), "bonsai credentials set jira") || strings.Contains(err.Error(), trackertest.JiraToken) {
			t.Fatalf("revoked: %v", err)
		}
	})
	t.Run("no permission to comment", func(t *testing.T) {
		t.Parallel()
		j, tr := fakeJira(t)
		a := j.OpenIssue("PROJ", "To Do", "acc-carol", "x", nil, "bonsai")
		j.SetPermissions("PROJ", trackertest.Browse)
		_, err := tr.Comment(ctx, a, "hello")
		if tracker.ReasonOf(err) != tracker.Forbidden || !strings.Contains(err.Error(), "Add comments") {
			t.Fatalf("comment: %v", err)
		}
	})
	t.Run("cannot browse users", func(t *testing.T) {
		t.Parallel()
		j, tr := fakeJira(t)
		a := j.OpenIssue("PROJ", "To Do", "acc-carol", "x", nil, "bonsai")
		j.Comment(a, "acc-carol", "hi")
		j.NoUserBrowsing()
		if _, _, err := tr.Comments(ctx, a, ""); tracker.ReasonOf(err) != tracker.Forbidden || !strings.Contains(err.Error(), "Browse users and groups") {
			t.Fatalf("comments without user browsing: %v", err)
		}
	})
	t.Run("deleted, invisible and moved", func(t *testing.T) {
		t.Parallel()
		j, tr := fakeJira(t)
		a := j.OpenIssue("PROJ", "To Do", "acc-carol", "x", nil, "bonsai")
		b := j.OpenIssue("PROJ", "To Do", "acc-carol", "y", nil, "bonsai")
		moved := j.MoveIssue(b, "OTHER")
		if is, err := tr.Issue(ctx, b); err != nil || is.Moved != moved || is.Ref != moved {
			t.Fatalf("moved: %+v, %v", is, err)
		}
		j.DeleteIssue(a)
		if _, err := tr.Issue(ctx, a); tracker.ReasonOf(err) != tracker.NotFound {
			t.Fatalf("deleted: %v", err)
		}
		j.SetPermissions("OTHER")
		if _, err := tr.Issue(ctx, moved); tracker.ReasonOf(err) != tracker.NotFound {
			t.Fatalf("invisible: %v", err)
		}
	})
	t.Run("rate limit", func(t *testing.T) {
		t.Parallel()
		j, tr := fakeJira(t)
		j.RateLimit(1, 0)
		j.ResetRequests()
		if _, err := tr.List(ctx, projBonsai, ""); err != nil || len(j.Requests()) != 2 {
			t.Fatalf("short limit: %v after %v", err, j.Requests())
		}
		j.RateLimit(5, 3600)
		j.ResetRequests()
		_, err := tr.List(ctx, projBonsai, "")
		var e *tracker.Error
		if !errors.As(err, &e) || e.Reason != tracker.RateLimited || e.RetryAfter != time.Hour || len(j.Requests()) != 1 {
			t.Fatalf("long limit: %v after %v", err, j.Requests())
		}
	})
}

func TestJiraMirror(t *testing.T) {
	t.Parallel()
	j, tr := fakeJira(t)
	ctx := context.Background()
	a := j.OpenIssue("PROJ", "To Do", "acc-carol", "x", nil, "bonsai")
	is, err := tr.Issue(ctx, a)
	if err != nil {
		t.Fatal(err)
	}
	if err := tr.Mirror(ctx, is, "VERIFICATION"); err != nil {
		t.Fatal(err)
	}
	if st, _ := j.Status(a); st != "In Review" {
		t.Fatalf("status %q", st)
	}
	if err := tr.Mirror(ctx, is, "DONE"); err != nil {
		t.Fatal(err)
	}
	if is, _ = tr.Issue(ctx, a); is.State != tracker.Closed || is.Status != "Done" {
		t.Fatalf("done: %+v", is)
	}
	j.SetPermissions("PROJ", trackertest.Browse)
	if err := tr.Mirror(ctx, is, "IN_PROGRESS"); tracker.ReasonOf(err) != tracker.Invalid || !strings.Contains(err.Error(), "no transition") {
		t.Fatalf("without the transition permission: %v", err)
	}
}
