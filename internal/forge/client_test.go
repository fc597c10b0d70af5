package forge_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/bonsai-run/bonsai/internal/forge"
	"github.com/bonsai-run/bonsai/internal/forge/forgetest"
)

// each runs f against a fake of every forge.
func each(t *testing.T, f func(t *testing.T, s *forgetest.Server, c forge.Client)) {
	for _, k := range forge.Kinds() {
		t.Run(string(k), func(t *testing.T) {
			s := forgetest.New(t, k)
			s.AddRepo("acme", "widget")
			f(t, s, s.Client(t, "acme", "widget"))
		})
	}
}

func reason(t *testing.T, err error, want forge.Reason) *forge.Error {
	t.Helper()
	var fe *forge.Error
	if !errors.As(err, &fe) || fe.Reason != want {
		t.Fatalf("err = %v; want reason %s", err, want)
	}
	return fe
}

func TestClient_PullRequestCycle(t *testing.T) {
	each(t, func(t *testing.T, s *forgetest.Server, c forge.Client) {
		ctx := context.Background()
		if _, found, err := c.FindPR(ctx, "bonsai/1-fix"); err != nil || found {
			t.Fatalf("FindPR before open = %v, %v", found, err)
		}
		pr, err := c.OpenPR(ctx, forge.NewPR{Title: "demo#1 Fix it", Body: "Done.", Head: "bonsai/1-fix", Base: "main"})
		if err != nil {
			t.Fatal(err)
		}
		if pr.Number != 1 || pr.State != forge.Open || pr.HeadSHA == "" || !strings.HasPrefix(pr.URL, s.URL) {
			t.Fatalf("opened %+v", pr)
		}
		if got, found, err := c.FindPR(ctx, "bonsai/1-fix"); err != nil || !found || got.Number != 1 {
			t.Fatalf("FindPR = %+v, %v, %v", got, found, err)
		}
		if _, err := c.UpdatePR(ctx, 1, "demo#1 Fix it properly", "Done again."); err != nil {
			t.Fatal(err)
		}
		if got := s.PR("acme", "widget", 1); got.Title != "demo#1 Fix it properly" || got.Body != "Done again." {
			t.Fatalf("after update %+v", got)
		}

		// Conditional reads: unchanged is a 304.
		p1, err := c.Poll(ctx, 1, "")
		if err != nil || p1.NotModified || p1.ETag == "" || p1.PR.State != forge.Open {
			t.Fatalf("first poll %+v, %v", p1, err)
		}
		p2, err := c.Poll(ctx, 1, p1.ETag)
		if err != nil || !p2.NotModified {
			t.Fatalf("second poll %+v, %v; want not modified", p2, err)
		}
		reqs := s.Requests()
		if last := reqs[len(reqs)-1]; last.Status != http.StatusNotModified || !last.Conditional {
			t.Fatalf("last request %+v; want a conditional 304", last)
		}

		// A review with changes requested and an inline comment.
		s.Review("acme", "widget", 1, "carol", forge.ChangesRequested, "Please handle the empty list.")
		s.Comment("acme", "widget", 1, "carol", "list.go", 12, "This panics on nil.")
		rs, cur, err := c.Reviews(ctx, 1, "")
		if err != nil {
			t.Fatal(err)
		}
		var kinds []string
		for _, r := range rs {
			kinds = append(kinds, string(r.Kind)+":"+r.Author+":"+r.Path)
			if r.Author != "carol" || r.Body == "" && r.Kind != forge.ChangesRequested {
				t.Errorf("review %+v", r)
			}
		}
		if got := strings.Join(kinds, " "); !strings.Contains(got, "changes_requested:carol") || !strings.Contains(got, "commented:carol:list.go") {
			t.Fatalf("reviews = %s", got)
		}
		if rs, _, err := c.Reviews(ctx, 1, cur); err != nil || len(rs) != 0 {
			t.Fatalf("reviews after the cursor = %+v, %v; want none", rs, err)
		}
		s.Talk("acme", "widget", 1, "dave", "Also update the docs.")
		rs, _, err = c.Reviews(ctx, 1, cur)
		if err != nil || len(rs) != 1 || rs[0].Body != "Also update the docs." || rs[0].Author != "dave" {
			t.Fatalf("new conversation comment = %+v, %v", rs, err)
		}

		// Checks: a failing one is named.
		head := s.PR("acme", "widget", 1).HeadSHA
		s.SetCheck("acme", "widget", head, "test", forge.ChecksFailure, "2 tests failed")
		s.SetCheck("acme", "widget", head, "lint", forge.ChecksSuccess, "")
		st, err := c.Checks(ctx, head)
		if err != nil || st.State != forge.ChecksFailure || len(st.Failing) != 1 || st.Failing[0].Name != "test" {
			t.Fatalf("checks = %+v, %v", st, err)
		}
		if s.Kind == forge.GitLab {
			p, err := c.Poll(ctx, 1, "")
			if err != nil || !p.PR.HasChecks || p.PR.Checks != forge.ChecksFailure {
				t.Fatalf("merge request's pipeline = %+v, %v", p.PR, err)
			}
		}

		// Merging: failing required check, a moved head, then green.
		_, err = c.Merge(ctx, 1, forge.MergeRequest{Style: forge.Squash, Title: "demo#1 Fix it", SHA: head})
		reason(t, err, forge.NotMergeable)
		s.SetCheck("acme", "widget", head, "test", forge.ChecksSuccess, "")
		_, err = c.Merge(ctx, 1, forge.MergeRequest{Style: forge.Squash, SHA: "0000000000000000000000000000000000000000"})
		reason(t, err, forge.Conflict)
		sha, err := c.Merge(ctx, 1, forge.MergeRequest{Style: forge.Squash, Title: "demo#1 Fix it", Message: "Criteria met.", SHA: head})
		if err != nil || sha == "" {
			t.Fatalf("merge = %q, %v", sha, err)
		}
		if got := s.PR("acme", "widget", 1); got.State != forge.Merged || got.MergeMethod != "squash" {
			t.Fatalf("after merge %+v", got)
		}
		p3, err := c.Poll(ctx, 1, p1.ETag)
		if err != nil || p3.NotModified || p3.PR.State != forge.Merged || p3.PR.MergeCommit != sha {
			t.Fatalf("poll after merge %+v, %v", p3, err)
		}
		_, err = c.Merge(ctx, 1, forge.MergeRequest{Style: forge.Squash})
		reason(t, err, forge.NotMergeable)
	})
}

func TestClient_Refusals(t *testing.T) {
	each(t, func(t *testing.T, s *forgetest.Server, c forge.Client) {
		ctx := context.Background()
		if _, err := c.OpenPR(ctx, forge.NewPR{Title: "t", Head: "b", Base: "main"}); err != nil {
			t.Fatal(err)
		}
		// A second pull request for the same branch.
		_, err := c.OpenPR(ctx, forge.NewPR{Title: "t", Head: "b", Base: "main"})
		if r := forge.ReasonOf(err); r != forge.Invalid && r != forge.Conflict {
			t.Fatalf("duplicate: %v", err)
		}
		// A protected branch.
		s.BlockMerge("acme", "widget", 1, http.StatusForbidden, "Protected branch update failed: at least 1 approving review is required")
		fe := reason(t, func() error { _, err := c.Merge(ctx, 1, forge.MergeRequest{}); return err }(), forge.Forbidden)
		if !strings.Contains(fe.Error(), "approving review") || !strings.Contains(fe.Error(), "scopes") {
			t.Errorf("message %q names neither the forge's reason nor the fix", fe.Error())
		}
		s.UnblockMerge("acme", "widget", 1)
		// A token without the scope.
		list := "/pulls"
		if s.Kind == forge.GitLab {
			list = "/merge_requests"
		}
		s.Fail("", list, http.StatusForbidden, "Resource not accessible by personal access token")
		_, _, err = c.FindPR(ctx, "b")
		reason(t, err, forge.Forbidden)
		s.Heal()
		// A repository the token cannot see.
		other := s.Client(t, "acme", "secret")
		_, err = other.Poll(ctx, 1, "")
		reason(t, err, forge.NotFound)
		// A revoked token.
		s.SetToken("another")
		_, err = c.Poll(ctx, 1, "")
		fe = reason(t, err, forge.Unauthorized)
		if strings.Contains(fe.Error(), forgetest.Token) {
			t.Errorf("the error %q holds the token", fe.Error())
		}
		s.SetToken(forgetest.Token)
		// A forge that is down.
		s.Fail("", "/1", http.StatusBadGateway, "")
		_, err = c.Poll(ctx, 1, "")
		reason(t, err, forge.Unavailable)
		s.Heal()
		// No token at all.
		nt, _ := forge.New(s.Repo("acme", "widget"), forge.Options{})
		_, err = nt.Poll(ctx, 1, "")
		fe = reason(t, err, forge.NoToken)
		if !strings.Contains(fe.Error(), "bonsai credentials set "+string(s.Kind)) {
			t.Errorf("no-token message %q has no fix", fe.Error())
		}
	})
}

func TestClient_RateLimits(t *testing.T) {
	each(t, func(t *testing.T, s *forgetest.Server, c forge.Client) {
		ctx := context.Background()
		if _, err := c.OpenPR(ctx, forge.NewPR{Title: "t", Head: "b", Base: "main"}); err != nil {
			t.Fatal(err)
		}
		// A short wait is waited out, and the request made again.
		s.ResetRequests()
		s.RateLimit(1, 0)
		if _, err := c.Poll(ctx, 1, ""); err != nil {
			t.Fatalf("after a Retry-After of 0: %v", err)
		}
		if n := len(s.Requests()); n != 2 {
			t.Fatalf("%d requests; want the limited one and its retry", n)
		}
		// A long one is reported with its delay.
		s.RateLimit(5, 120)
		_, err := c.Poll(ctx, 1, "")
		fe := reason(t, err, forge.RateLimited)
		if fe.RetryAfter != 120*time.Second {
			t.Errorf("RetryAfter = %s; want 2m0s", fe.RetryAfter)
		}
	})
}

func TestClient_TokenStaysOnTheAPIHost(t *testing.T) {
	var leaked []string
	elsewhere := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		for _, h := range []string{"Authorization", "Private-Token"} {
			if v := r.Header.Get(h); v != "" {
				leaked = append(leaked, h+": "+v)
			}
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"number": 1, "state": "open"}`))
	}))
	defer elsewhere.Close()
	for _, k := range forge.Kinds() {
		api := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, elsewhere.URL+r.URL.Path, http.StatusFound)
		}))
		c, err := forge.New(forge.Repo{Kind: k, API: api.URL + "/api", Owner: "o", Name: "r"}, forge.Options{Token: "secret-token-123456"})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := c.Poll(context.Background(), 1, ""); err != nil {
			t.Errorf("%s: %v", k, err)
		}
		api.Close()
	}
	if len(leaked) > 0 {
		t.Fatalf("the token reached another host: %v", leaked)
	}
}

// A forge that sends no ETag still costs one request when nothing
// changed: the answer's digest stands in for the ETag.
func TestClient_PollWithoutETags(t *testing.T) {
	each(t, func(t *testing.T, s *forgetest.Server, c forge.Client) {
		ctx := context.Background()
		s.WithoutETags()
		if _, err := c.OpenPR(ctx, forge.NewPR{Title: "t", Head: "b", Base: "main"}); err != nil {
			t.Fatal(err)
		}
		p1, err := c.Poll(ctx, 1, "")
		if err != nil || p1.NotModified || p1.ETag == "" {
			t.Fatalf("first poll %+v, %v", p1, err)
		}
		s.ResetRequests()
		p2, err := c.Poll(ctx, 1, p1.ETag)
		if err != nil || !p2.NotModified {
			t.Fatalf("unchanged poll %+v, %v", p2, err)
		}
		if rs := s.Requests(); len(rs) != 1 || rs[0].Conditional {
			t.Fatalf("requests %+v; want one, without If-None-Match", rs)
		}
		s.Close("acme", "widget", 1)
		if p3, err := c.Poll(ctx, 1, p1.ETag); err != nil || p3.NotModified || p3.PR.State != forge.Closed {
			t.Fatalf("after closing %+v, %v", p3, err)
		}
	})
}

// Reviews and comments past a page are read by following the Link header.
func TestClient_ReviewsFollowPages(t *testing.T) {
	each(t, func(t *testing.T, s *forgetest.Server, c forge.Client) {
		ctx := context.Background()
		if _, err := c.OpenPR(ctx, forge.NewPR{Title: "t", Head: "b", Base: "main"}); err != nil {
			t.Fatal(err)
		}
		s.PageSize(2)
		for i := 0; i < 5; i++ {
			s.Review("acme", "widget", 1, "carol", forge.Commented, "note "+string(rune('a'+i)))
		}
		rs, _, err := c.Reviews(ctx, 1, "")
		if err != nil || len(rs) != 5 || rs[4].Body != "note e" {
			t.Fatalf("reviews = %+v, %v; want the 5 notes across pages", rs, err)
		}
	})
}

// A GitLab project in a subgroup is addressed by its URL-encoded path.
func TestClient_GitLabSubgroup(t *testing.T) {
	s := forgetest.New(t, forge.GitLab)
	s.AddRepo("group/sub", "widget")
	c := s.Client(t, "group/sub", "widget")
	pr, err := c.OpenPR(context.Background(), forge.NewPR{Title: "t", Head: "b", Base: "main"})
	if err != nil || pr.Number != 1 {
		t.Fatalf("open in a subgroup: %+v, %v", pr, err)
	}
}

// Issue 27, item 10: a failure's fix says who repeats the request: the
// beat repeats its reads of pull requests, a person repeats a merge.
func TestError_FixSaysWhoTriesAgain(t *testing.T) {
	cases := []struct {
		op, want, not string
		reason        forge.Reason
	}{
		{"read pull request #3", "the next beat tries again", "approve", forge.Unavailable},
		{"read reviews of merge request !3", "the next beat tries again", "approve", forge.Unavailable},
		{"merge pull request #3", "approve again or run `bonsai ticket land`", "next beat", forge.Unavailable},
		{"merge merge request !3", "after 1h0m0s, approve again", "no beat", forge.RateLimited},
		{"read checks of abc", "no beat asks it again before 1h0m0s", "approve", forge.RateLimited},
		{"open pull request", "later beats try again, with growing waits", "does not repeat", forge.Unavailable},
		{"find merge request of bonsai/3-x", "a later beat tries again, not before 1h0m0s", "does not repeat", forge.RateLimited},
	}
	for _, c := range cases {
		e := &forge.Error{Kind: forge.Gitea, Op: c.op, Reason: c.reason, RetryAfter: time.Hour}
		if fix := e.Fix(); !strings.Contains(fix, c.want) || strings.Contains(fix, c.not) {
			t.Errorf("%s (%s): fix %q; want %q, not %q", c.op, c.reason, fix, c.want, c.not)
		}
	}
}

// A comment on a line the change removed is on the old side of the
// diff, on every forge: its line is the old file's, and it says so.
func TestClient_OldSideComments(t *testing.T) {
	each(t, func(t *testing.T, s *forgetest.Server, c forge.Client) {
		ctx := context.Background()
		if _, err := c.OpenPR(ctx, forge.NewPR{Title: "demo#1 Fix", Body: "Done.", Head: "bonsai/1-fix", Base: "main"}); err != nil {
			t.Fatal(err)
		}
		s.CommentOld("acme", "widget", 1, "carol", "list.go", 7, "Why remove this check?")
		s.Comment("acme", "widget", 1, "carol", "list.go", 12, "This panics on nil.")
		rs, _, err := c.Reviews(ctx, 1, "")
		if err != nil || len(rs) != 2 {
			t.Fatalf("reviews %+v, %v", rs, err)
		}
		if rs[0].Path != "list.go" || rs[0].Line != 7 || !rs[0].Old || rs[1].Line != 12 || rs[1].Old {
			t.Fatalf("reviews %+v", rs)
		}
	})
}

// TestClient_ClosePR: a pull request closed through the API is closed on
// the forge, unmerged, and reads so; closing it again changes nothing;
// one that does not exist is an error.
func TestClient_ClosePR(t *testing.T) {
	each(t, func(t *testing.T, s *forgetest.Server, c forge.Client) {
		ctx := context.Background()
		if _, err := c.OpenPR(ctx, forge.NewPR{Title: "demo#2 Variant", Body: "One way.", Head: "bonsai/demo/2", Base: "main"}); err != nil {
			t.Fatal(err)
		}
		pr, err := c.ClosePR(ctx, 1)
		if err != nil || pr.Number != 1 || pr.State != forge.Closed {
			t.Fatalf("ClosePR = %+v, %v; want #1 closed", pr, err)
		}
		if got := s.PR("acme", "widget", 1); got.State != forge.Closed {
			t.Fatalf("on the forge the pull request is %s, want closed", got.State)
		}
		if p, err := c.Poll(ctx, 1, ""); err != nil || p.PR.State != forge.Closed {
			t.Fatalf("poll after closing = %+v, %v", p.PR, err)
		}
		if pr, err := c.ClosePR(ctx, 1); err != nil || pr.State != forge.Closed {
			t.Fatalf("closing again = %+v, %v", pr, err)
		}
		if _, err := c.ClosePR(ctx, 7); err == nil {
			t.Fatal("closing a pull request that does not exist worked")
		}
	})
}
