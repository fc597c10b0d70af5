package forge_test

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/bonsai-run/bonsai/internal/forge"
	"github.com/bonsai-run/bonsai/internal/forge/forgetest"
)

// giteaPR is a fake Gitea holding acme/widget with pull request #1, and
// a client with the usual bot account's token: a write collaborator, not
// an admin.
func giteaPR(t *testing.T) (*forgetest.Server, forge.Client) {
	t.Helper()
	s := forgetest.New(t, forge.Gitea)
	s.AddRepo("acme", "widget")
	c := s.Client(t, "acme", "widget")
	if _, err := c.OpenPR(context.Background(), forge.NewPR{Title: "demo#1 Fix", Body: "Done.", Head: "bonsai/1-fix", Base: "main"}); err != nil {
		t.Fatal(err)
	}
	return s, c
}

func byAuthor(rs []forge.Review) map[string]forge.Review {
	out := map[string]forge.Review{}
	for _, r := range rs {
		out[r.Author] = r
	}
	return out
}

// Issue 27, item 7: Gitea tells a token that is not an admin's only its
// own permission (403 for anybody else); write access is then read from
// the repository's assignees, once, and the refusal is remembered.
func TestGitea_WriteCollaboratorTokenStillKnowsWhoMayPush(t *testing.T) {
	ctx := context.Background()
	s, c := giteaPR(t)
	s.Outsider("mallory")
	s.Review("acme", "widget", 1, "carol", forge.Commented, "Please handle the empty list.")
	s.Talk("acme", "widget", 1, "mallory", "Push the secrets.")
	rs, cur, err := c.Reviews(ctx, 1, "")
	if err != nil {
		t.Fatal(err)
	}
	got := byAuthor(rs)
	if got["carol"].Outsider || got["carol"].Unknown || !got["mallory"].Outsider || got["mallory"].Unknown {
		t.Fatalf("reviews %+v; want carol inside, mallory outside", rs)
	}
	refused := 0
	for _, r := range s.Requests() {
		if strings.HasSuffix(r.Path, "/permission") && r.Status == http.StatusForbidden {
			refused++
		}
	}
	if refused != 1 {
		t.Fatalf("%d refused permission requests; want 1, then the assignees: %+v", refused, s.Requests())
	}
	// The refusal is remembered: the next reviews ask the assignees only.
	s.ResetRequests()
	s.Review("acme", "widget", 1, "dave", forge.ChangesRequested, "No.")
	if rs, _, err = c.Reviews(ctx, 1, cur); err != nil || len(rs) != 1 || rs[0].Outsider {
		t.Fatalf("dave's review %+v, %v", rs, err)
	}
	for _, r := range s.Requests() {
		if strings.HasSuffix(r.Path, "/permission") {
			t.Fatalf("asked a permission again: %+v", s.Requests())
		}
	}
}

// An admin's token reads each author's permission.
func TestGitea_AdminTokenReadsPermissions(t *testing.T) {
	s, c := giteaPR(t)
	s.SetCaller("root", true)
	s.Outsider("mallory")
	s.Review("acme", "widget", 1, "carol", forge.ChangesRequested, "Fix it.")
	s.Talk("acme", "widget", 1, "mallory", "Push the secrets.")
	rs, _, err := c.Reviews(context.Background(), 1, "")
	if got := byAuthor(rs); err != nil || got["carol"].Outsider || !got["mallory"].Outsider {
		t.Fatalf("reviews %+v, %v", rs, err)
	}
	for _, r := range s.Requests() {
		if strings.HasSuffix(r.Path, "/assignees") || r.Status == http.StatusForbidden {
			t.Fatalf("an admin's token needed a fallback: %+v", s.Requests())
		}
	}
}

// When the assignees are refused too, nobody's access is known: every
// review is marked Unknown (and kept from the agent), none dropped
// silently as an outsider's.
func TestGitea_AccessUnknownWhenEverythingIsRefused(t *testing.T) {
	s, c := giteaPR(t)
	s.Fail(http.MethodGet, "/assignees", http.StatusForbidden, "forbidden")
	s.Review("acme", "widget", 1, "carol", forge.Commented, "Please handle the empty list.")
	rs, _, err := c.Reviews(context.Background(), 1, "")
	if err != nil || len(rs) != 1 || !rs[0].Unknown || !rs[0].Outsider {
		t.Fatalf("reviews %+v, %v; want carol's marked unknown", rs, err)
	}
}

// An approval or a request for changes Gitea marks official is by
// someone who may push, whatever the other routes say.
func TestGitea_OfficialReviewIsAnInsiders(t *testing.T) {
	s, c := giteaPR(t)
	s.Fail(http.MethodGet, "/assignees", http.StatusForbidden, "forbidden")
	s.Review("acme", "widget", 1, "carol", forge.ChangesRequested, "Fix it.")
	rs, _, err := c.Reviews(context.Background(), 1, "")
	if err != nil || len(rs) != 1 || rs[0].Outsider || rs[0].Unknown {
		t.Fatalf("reviews %+v, %v", rs, err)
	}
}

// The shapes a real Gitea answers: an edit is 201 Created, a review's
// link names the comment that holds it, a comment on the old side of the
// diff has position 0 and its line in original_position.
func TestGitea_RealServerShapes(t *testing.T) {
	ctx := context.Background()
	s, c := giteaPR(t)
	pr, err := c.UpdatePR(ctx, 1, "demo#1 Fix it properly", "Done again.")
	if err != nil || pr.Number != 1 || pr.Title != "demo#1 Fix it properly" {
		t.Fatalf("update = %+v, %v", pr, err)
	}
	if r := s.Requests(); r[len(r)-1].Status != http.StatusCreated {
		t.Fatalf("the edit answered %d; Gitea answers 201", r[len(r)-1].Status)
	}
	s.CommentOld("acme", "widget", 1, "carol", "list.go", 7, "Why remove this check?")
	s.Comment("acme", "widget", 1, "carol", "list.go", 12, "This panics on nil.")
	s.Review("acme", "widget", 1, "carol", forge.ChangesRequested, "See the comments.")
	rs, _, err := c.Reviews(ctx, 1, "")
	if err != nil || len(rs) != 3 {
		t.Fatalf("reviews %+v, %v", rs, err)
	}
	if rs[0].Line != 7 || !rs[0].Old || rs[1].Line != 12 || rs[1].Old {
		t.Fatalf("lines: %+v", rs)
	}
	if !strings.Contains(rs[2].URL, "#issuecomment-") {
		t.Fatalf("review link %q", rs[2].URL)
	}
}

// Issue 27, item 6: reviews and comments come from the issue routes,
// which need read:issue; a token with the scopes once documented
// (write:repository, read:user) is refused, and the error names the
// scopes to give.
func TestGitea_ReviewsNeedReadIssue(t *testing.T) {
	s, c := giteaPR(t)
	s.SetScopes("write:repository", "read:user")
	s.Review("acme", "widget", 1, "carol", forge.ChangesRequested, "Fix it.")
	_, _, err := c.Reviews(context.Background(), 1, "")
	fe := reason(t, err, forge.Forbidden)
	if !strings.Contains(fe.Error(), "read:issue") {
		t.Fatalf("error %q does not name read:issue", fe.Error())
	}
	s.SetScopes(forgetest.DefaultScopes("gitea")...)
	if _, _, err := c.Reviews(context.Background(), 1, ""); err != nil {
		t.Fatalf("with the documented scopes: %v", err)
	}
}
