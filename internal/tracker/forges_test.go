package tracker_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/bonsai-run/bonsai/internal/forge"
	"github.com/bonsai-run/bonsai/internal/forge/forgetest"
	"github.com/bonsai-run/bonsai/internal/tracker"
)

const owner, name = "acme", "widget"

var kinds = []forge.Kind{forge.GitHub, forge.GitLab, forge.Gitea}

// fake starts a fake forge of kind k holding acme/widget, and a tracker
// of its issues.
func fake(t *testing.T, k forge.Kind) (*forgetest.Server, tracker.Tracker) {
	t.Helper()
	srv := forgetest.New(t, k)
	srv.AddRepo(owner, name)
	if k == forge.Gitea {
		srv.SetScopes("write:issue", "read:repository") // what docs/trackers.md asks
	}
	return srv, open(t, srv, tracker.Options{Token: forgetest.Token, Login: "bonsai"})
}

func open(t *testing.T, srv *forgetest.Server, o tracker.Options) tracker.Tracker {
	t.Helper()
	tr, err := tracker.NewForge(srv.Repo(owner, name), o)
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

func eachKind(t *testing.T, f func(t *testing.T, k forge.Kind)) {
	for _, k := range kinds {
		t.Run(string(k), func(t *testing.T) {
			t.Parallel()
			f(t, k)
		})
	}
}

func refs(l tracker.List) []string {
	var out []string
	for _, is := range l.Issues {
		out = append(out, is.Ref)
	}
	slices.Sort(out)
	return out
}

func TestListThenUnchangedCostsOneRequest(t *testing.T) {
	t.Parallel()
	eachKind(t, func(t *testing.T, k forge.Kind) {
		srv, tr := fake(t, k)
		ctx := context.Background()
		a := srv.OpenIssue(owner, name, "carol", "Greet the world", "Say hello.\n\n- [ ] prints hello\n- [x] has a test\n", "bonsai")
		srv.OpenIssue(owner, name, "carol", "Not for Bonsai", "", "bug")
		b := srv.OpenIssue(owner, name, "dave", "Second", "", "bonsai", "ui")
		closed := srv.OpenIssue(owner, name, "dave", "Closed one", "", "bonsai")
		srv.CloseIssue(owner, name, closed)
		srv.AssignIssue(owner, name, b, "bonsai")

		l, err := tr.List(ctx, tracker.Query{Labels: []string{"bonsai"}}, "")
		if err != nil {
			t.Fatal(err)
		}
		if got, want := refs(l), []string{itoa(a), itoa(b)}; !slices.Equal(got, want) || l.NotModified || l.Validator == "" {
			t.Fatalf("first list: refs %v (want %v), not modified %v, validator %q", got, want, l.NotModified, l.Validator)
		}
		var first tracker.Issue
		for _, is := range l.Issues {
			if is.Number == a {
				first = is
			}
		}
		if first.Title != "Greet the world" || first.Author != "carol" || first.State != tracker.Open || !slices.Contains(first.Labels, "bonsai") ||
			!strings.Contains(first.URL, "/issues/"+itoa(a)) || first.Updated.IsZero() {
			t.Fatalf("issue read: %+v", first)
		}
		if cs := tracker.Checklist(first.Body); len(cs) != 2 || cs[0].Text != "prints hello" || !cs[1].Done {
			t.Fatalf("checklist of the body: %+v", cs)
		}

		srv.ResetRequests()
		again, err := tr.List(ctx, tracker.Query{Labels: []string{"bonsai"}}, l.Validator)
		if err != nil {
			t.Fatal(err)
		}
		reqs := srv.Requests()
		if !again.NotModified || again.Issues != nil || len(reqs) != 1 {
			t.Fatalf("unchanged list: not modified %v, %d issues, requests %+v", again.NotModified, len(again.Issues), reqs)
		}
		if k != forge.Gitea && (!reqs[0].Conditional || reqs[0].Status != 304) {
			t.Fatalf("%s sends ETags: the unchanged list should be a 304 to a conditional request, got %+v", k, reqs[0])
		}

		// A comment changes the issue: the list says so.
		srv.CommentIssue(owner, name, b, "carol", "ping")
		changed, err := tr.List(ctx, tracker.Query{Labels: []string{"bonsai"}}, again.Validator)
		if err != nil || changed.NotModified || len(changed.Issues) != 2 {
			t.Fatalf("after a comment: %+v, %v", changed, err)
		}

		// The assignee query.
		mine, err := tr.List(ctx, tracker.Query{Assignee: "bonsai"}, "")
		if err != nil || !slices.Equal(refs(mine), []string{itoa(b)}) {
			t.Fatalf("assigned: %v, %v", refs(mine), err)
		}
	})
}

// A pull request is never an issue, though GitHub and Gitea list both
// on the same route.
func TestListLeavesOutPullRequests(t *testing.T) {
	t.Parallel()
	for _, k := range []forge.Kind{forge.GitHub, forge.Gitea} {
		t.Run(string(k), func(t *testing.T) {
			t.Parallel()
			srv, tr := fake(t, k)
			srv.SetScopes(forgetest.DefaultScopes(string(k))...) // the pull request scopes, to open one
			if k == forge.Gitea {
				srv.SetScopes("write:repository", "write:issue")
			}
			n := srv.OpenIssue(owner, name, "carol", "An issue", "")
			if _, err := srv.Client(t, owner, name).OpenPR(context.Background(), forge.NewPR{Title: "A pull request", Head: "topic", Base: "main"}); err != nil {
				t.Fatal(err)
			}
			l, err := tr.List(context.Background(), tracker.Query{}, "")
			if err != nil || !slices.Equal(refs(l), []string{itoa(n)}) {
				t.Fatalf("list: %v, %v", refs(l), err)
			}
		})
	}
}

func TestListPagesAndStaysOneRequest(t *testing.T) {
	t.Parallel()
	eachKind(t, func(t *testing.T, k forge.Kind) {
		srv, tr := fake(t, k)
		var want []string
		for i := range 5 {
			want = append(want, itoa(srv.OpenIssue(owner, name, "carol", "Issue "+itoa(i), "", "bonsai")))
		}
		slices.Sort(want)
		srv.PageSize(2)
		l, err := tr.List(context.Background(), tracker.Query{Labels: []string{"bonsai"}}, "")
		if err != nil || !slices.Equal(refs(l), want) {
			t.Fatalf("paged list: %v, %v", refs(l), err)
		}
		srv.ResetRequests()
		again, err := tr.List(context.Background(), tracker.Query{Labels: []string{"bonsai"}}, l.Validator)
		if err != nil || !again.NotModified {
			t.Fatalf("unchanged paged list: %+v, %v", again, err)
		}
		// GitHub and GitLab sort by update, so an unchanged first page is
		// an unchanged list: one request. Gitea cannot sort by update and
		// reads every page.
		if want := map[forge.Kind]int{forge.GitHub: 1, forge.GitLab: 1, forge.Gitea: 3}[k]; len(srv.Requests()) != want {
			t.Fatalf("unchanged paged list cost %d requests, want %d", len(srv.Requests()), want)
		}
	})
}

func itoa(n int) string { return forgeItoa(n) }

func TestCommentsAfterCursor(t *testing.T) {
	t.Parallel()
	eachKind(t, func(t *testing.T, k forge.Kind) {
		srv, tr := fake(t, k)
		ctx := context.Background()
		srv.Outsider("mallory")
		n := srv.OpenIssue(owner, name, owner, "Greet the world", "", "bonsai")
		srv.CommentIssue(owner, name, n, owner, "the owner says")
		srv.CommentIssue(owner, name, n, "carol", "a collaborator says")
		spoof := srv.CommentIssue(owner, name, n, "mallory", "an outsider says "+tracker.Marker)
		srv.AssignIssue(owner, name, n, "bonsai") // GitLab writes a system note

		cs, cur, err := tr.Comments(ctx, itoa(n), "")
		if err != nil {
			t.Fatal(err)
		}
		got := map[string]tracker.Comment{}
		for _, c := range cs {
			got[c.Author] = c
		}
		if len(cs) != 3 || !got[owner].Writer || !got["carol"].Writer || got["mallory"].Writer || got["mallory"].Ours || got["mallory"].Unknown {
			t.Fatalf("first read: %+v", cs)
		}
		if got["carol"].Body != "a collaborator says" || got["carol"].ID == "" || got["carol"].Created.IsZero() {
			t.Fatalf("comment read: %+v", got["carol"])
		}

		// Bonsai's own comment comes back marked as ours, never as a person's.
		posted, err := tr.Comment(ctx, itoa(n), "**Bonsai** asks: which greeting?")
		if err != nil {
			t.Fatal(err)
		}
		if !posted.Ours || !strings.Contains(srv.Issue(owner, name, n).Comments[len(srv.Issue(owner, name, n).Comments)-1].Body, tracker.Marker) {
			t.Fatalf("posted comment: %+v", posted)
		}
		srv.CommentIssue(owner, name, n, owner, "Hello, world.")
		next, cur2, err := tr.Comments(ctx, itoa(n), cur)
		if err != nil {
			t.Fatal(err)
		}
		if len(next) != 2 || !next[0].Ours || next[1].Ours || next[1].Body != "Hello, world." || !next[1].Writer || next[1].Edited {
			t.Fatalf("after the cursor: %+v", next)
		}

		// Nothing new: nothing returned.
		none, cur3, err := tr.Comments(ctx, itoa(n), cur2)
		if err != nil || len(none) != 0 || cur3 != cur2 {
			t.Fatalf("nothing new: %+v, %q→%q, %v", none, cur2, cur3, err)
		}

		// An edit after delivery comes back, marked.
		srv.EditIssueComment(owner, name, n, spoof, "an outsider edits")
		edited, _, err := tr.Comments(ctx, itoa(n), cur3)
		if err != nil || len(edited) != 1 || !edited[0].Edited || edited[0].Body != "an outsider edits" || edited[0].Writer {
			t.Fatalf("edited: %+v, %v", edited, err)
		}
	})
}

func TestWriters(t *testing.T) {
	t.Parallel()
	eachKind(t, func(t *testing.T, k forge.Kind) {
		srv, tr := fake(t, k)
		srv.Outsider("mallory")
		n := srv.OpenIssue(owner, name, owner, "An issue", "")
		for _, u := range []string{"carol", "mallory", "rita"} {
			srv.CommentIssue(owner, name, n, u, "hello")
		}
		wantRita := tracker.AccessWrite
		if k == forge.GitLab {
			srv.Reporter("rita") // a member who reads but may not push
			wantRita = tracker.AccessRead
		}
		acc, err := tr.Writers(context.Background(), []string{owner, "carol", "mallory", "rita"})
		if err != nil {
			t.Fatal(err)
		}
		want := map[string]tracker.Access{owner: tracker.AccessWrite, "carol": tracker.AccessWrite, "mallory": tracker.AccessRead, "rita": wantRita}
		for u, a := range want {
			if acc[u] != a {
				t.Errorf("%s: %s, want %s", u, acc[u], a)
			}
		}
	})
}

// Gitea tells a write collaborator's token only its own permission: the
// assignees decide then; an admin's token reads each permission; a token
// refused both says it does not know.
func TestGiteaWritersByToken(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		admin  bool
		scopes []string
		want   tracker.Access
		paths  []string
	}{
		{"collaborator", false, nil, tracker.AccessRead, []string{"/permission", "/assignees"}},
		{"admin", true, nil, tracker.AccessRead, []string{"/permission"}},
		{"no repository scope", false, []string{"write:issue"}, tracker.AccessUnknown, []string{"/permission", "/assignees"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv, tr := fake(t, forge.Gitea)
			srv.SetCaller("bonsai", tc.admin)
			if tc.scopes != nil {
				srv.SetScopes(tc.scopes...)
			}
			srv.Outsider("mallory")
			n := srv.OpenIssue(owner, name, owner, "An issue", "")
			srv.CommentIssue(owner, name, n, "mallory", "hello")
			srv.ResetRequests()
			cs, _, err := tr.Comments(context.Background(), itoa(n), "")
			if err != nil {
				t.Fatal(err)
			}
			a := tracker.AccessRead
			if cs[0].Writer {
				a = tracker.AccessWrite
			}
			if cs[0].Unknown {
				a = tracker.AccessUnknown
			}
			if len(cs) != 1 || a != tc.want {
				t.Fatalf("comments: %+v, want access %s", cs, tc.want)
			}
			var paths []string
			for _, r := range srv.Requests()[1:] {
				paths = append(paths, r.Path[strings.LastIndex(r.Path, "/"):])
			}
			if !slices.Equal(paths, tc.paths) {
				t.Fatalf("access asked with %v, want %v", paths, tc.paths)
			}
		})
	}
}

func TestRevokedTokenSaysTheFix(t *testing.T) {
	t.Parallel()
	eachKind(t, func(t *testing.T, k forge.Kind) {
		srv, tr := fake(t, k)
		srv.OpenIssue(owner, name, "carol", "An issue", "", "bonsai")
		srv.SetToken("another-token")
		_, err := tr.List(context.Background(), tracker.Query{Labels: []string{"bonsai"}}, "")
		var e *tracker.Error
		if !errors.As(err, &e) || e.Reason != tracker.Unauthorized || e.Status != 401 {
			t.Fatalf("revoked token: %v", err)
		}
		if msg := err.Error(); !strings.Contains(msg, "revoked") || !strings.Contains(msg, "bonsai credentials set "+string(k)) || strings.Contains(msg, forgetest.Token) {
			t.Fatalf("the error should name the fix and not the token: %s", msg)
		}
		none := open(t, srv, tracker.Options{})
		if _, err := none.List(context.Background(), tracker.Query{}, ""); tracker.ReasonOf(err) != tracker.NoToken || !strings.Contains(err.Error(), "credentials set") {
			t.Fatalf("no token: %v", err)
		}
	})
}

func TestRateLimitHonoured(t *testing.T) {
	t.Parallel()
	eachKind(t, func(t *testing.T, k forge.Kind) {
		srv, tr := fake(t, k)
		srv.OpenIssue(owner, name, "carol", "An issue", "", "bonsai")
		// A Retry-After within MaxWait is waited out and the request made
		// again, once.
		srv.RateLimit(1, 0)
		srv.ResetRequests()
		if _, err := tr.List(context.Background(), tracker.Query{}, ""); err != nil || len(srv.Requests()) != 2 {
			t.Fatalf("short limit: %v after %d requests", err, len(srv.Requests()))
		}
		// A longer one is not waited: the error says how long, and no
		// second request is made.
		srv.RateLimit(5, 3600)
		srv.ResetRequests()
		_, err := tr.List(context.Background(), tracker.Query{}, "")
		var e *tracker.Error
		if !errors.As(err, &e) || e.Reason != tracker.RateLimited || e.RetryAfter != time.Hour || len(srv.Requests()) != 1 {
			t.Fatalf("long limit: %v after %d requests", err, len(srv.Requests()))
		}
		if !strings.Contains(err.Error(), "1h0m0s") {
			t.Fatalf("the error should say how long to wait: %s", err)
		}
	})
}

func TestScopesRefused(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		kind      forge.Kind
		scopes    []string
		listFails bool
		fix       string
	}{
		{forge.GitHub, forgetest.GitHubFineGrained, true, "Issues read and write"}, // the pull request permissions do not read issues
		{forge.GitHub, []string{"issues:read", "metadata:read"}, false, "Issues read and write"},
		{forge.GitLab, []string{"read_api"}, false, "api"},
		{forge.Gitea, []string{"read:issue", "read:repository"}, false, "write:issue"},
		{forge.Gitea, []string{"write:repository"}, true, "write:issue"},
	} {
		t.Run(string(tc.kind)+"/"+strings.Join(tc.scopes, "+"), func(t *testing.T) {
			t.Parallel()
			srv, tr := fake(t, tc.kind)
			n := srv.OpenIssue(owner, name, "carol", "An issue", "", "bonsai")
			srv.SetScopes(tc.scopes...)
			_, err := tr.List(context.Background(), tracker.Query{Labels: []string{"bonsai"}}, "")
			if tc.listFails {
				if tracker.ReasonOf(err) != tracker.Forbidden || !strings.Contains(err.Error(), tc.fix) {
					t.Fatalf("list with %v: %v", tc.scopes, err)
				}
				return
			}
			if err != nil {
				t.Fatalf("list with %v: %v", tc.scopes, err)
			}
			_, err = tr.Comment(context.Background(), itoa(n), "hello")
			if tracker.ReasonOf(err) != tracker.Forbidden || !strings.Contains(err.Error(), tc.fix) {
				t.Fatalf("comment with %v: %v", tc.scopes, err)
			}
			if got := srv.Issue(owner, name, n).Comments; len(got) != 0 {
				t.Fatalf("a refused comment was posted: %+v", got)
			}
		})
	}
}

func TestDeletedAndInvisibleIssues(t *testing.T) {
	t.Parallel()
	eachKind(t, func(t *testing.T, k forge.Kind) {
		srv, tr := fake(t, k)
		ctx := context.Background()
		n := srv.OpenIssue(owner, name, "carol", "An issue", "", "bonsai")
		closed := srv.OpenIssue(owner, name, "carol", "Closed by hand", "", "bonsai")
		srv.CloseIssue(owner, name, closed)
		if is, err := tr.Issue(ctx, itoa(closed)); err != nil || is.State != tracker.Closed {
			t.Fatalf("closed issue: %+v, %v", is, err)
		}
		srv.DeleteIssue(owner, name, n)
		want := tracker.NotFound
		if k == forge.GitHub {
			want = tracker.Gone // GitHub answers 410 for a deleted issue
		}
		if _, err := tr.Issue(ctx, itoa(n)); tracker.ReasonOf(err) != want {
			t.Fatalf("deleted issue: %v, want %s", err, want)
		}
		if _, _, err := tr.Comments(ctx, itoa(n), ""); tracker.ReasonOf(err) != want {
			t.Fatalf("comments of a deleted issue: %v, want %s", err, want)
		}
		if _, err := tr.Issue(ctx, "not-a-number"); tracker.ReasonOf(err) != tracker.Invalid {
			t.Fatalf("bad reference: %v", err)
		}
		srv.HideIssues(owner, name)
		_, err := tr.List(ctx, tracker.Query{}, "")
		if tracker.ReasonOf(err) != tracker.NotFound || !strings.Contains(err.Error(), "cannot see it") {
			t.Fatalf("invisible repository: %v", err)
		}
	})
}

func TestMirrorState(t *testing.T) {
	t.Parallel()
	eachKind(t, func(t *testing.T, k forge.Kind) {
		srv, tr := fake(t, k)
		ctx := context.Background()
		n := srv.OpenIssue(owner, name, "carol", "An issue", "", "bonsai", "bonsai:todo")
		is, err := tr.Issue(ctx, itoa(n))
		if err != nil {
			t.Fatal(err)
		}
		if err := tr.Mirror(ctx, is, "IN_PROGRESS"); err != nil {
			t.Fatal(err)
		}
		if got := srv.Issue(owner, name, n).Labels; !slices.Equal(got, []string{"bonsai", "bonsai:in-progress"}) {
			t.Fatalf("labels: %v", got)
		}
		// Labels read before a change (bonsai:todo is gone by now): a
		// label already removed is not an error.
		if err := tr.Mirror(ctx, is, "VERIFICATION"); err != nil {
			t.Fatal(err)
		}
		if got := srv.Issue(owner, name, n).Labels; !slices.Equal(got, []string{"bonsai", "bonsai:in-progress", "bonsai:verification"}) {
			t.Fatalf("labels: %v", got)
		}
		srv.ResetRequests()
		now, _ := tr.Issue(ctx, itoa(n))
		if err := tr.Mirror(ctx, now, "VERIFICATION"); err != nil {
			t.Fatal(err)
		}
		if got := srv.Issue(owner, name, n).Labels; !slices.Equal(got, []string{"bonsai", "bonsai:verification"}) {
			t.Fatalf("labels: %v", got)
		}
	})
}

// A transferred issue: GitHub redirects to it in its new repository,
// GitLab closes the old one and names the new one.
func TestMovedIssue(t *testing.T) {
	t.Parallel()
	for _, k := range []forge.Kind{forge.GitHub, forge.GitLab} {
		t.Run(string(k), func(t *testing.T) {
			t.Parallel()
			srv, tr := fake(t, k)
			srv.AddRepo(owner, "other")
			n := srv.OpenIssue(owner, name, "carol", "Moving", "", "bonsai")
			to := srv.TransferIssue(owner, name, n, owner, "other")
			is, err := tr.Issue(context.Background(), itoa(n))
			if err != nil {
				t.Fatal(err)
			}
			switch k {
			case forge.GitHub:
				if is.Moved == "" || !strings.Contains(is.Moved, "/"+owner+"/other/issues/"+itoa(to)) || is.Title != "Moving" {
					t.Fatalf("moved on GitHub: %+v", is)
				}
			default:
				if is.Moved == "" || is.State != tracker.Closed {
					t.Fatalf("moved on GitLab: %+v", is)
				}
			}
			l, err := tr.List(context.Background(), tracker.Query{Labels: []string{"bonsai"}}, "")
			if err != nil || len(l.Issues) != 0 {
				t.Fatalf("the moved issue should leave the list: %+v, %v", l.Issues, err)
			}
		})
	}
}
