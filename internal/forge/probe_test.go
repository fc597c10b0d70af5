package forge_test

import (
	"context"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/bonsai-run/bonsai/internal/forge"
	"github.com/bonsai-run/bonsai/internal/forge/forgetest"
)

// CheckToken finds what a token lacks, changing nothing on the forge.
func TestCheckToken(t *testing.T) {
	cases := []struct {
		kind    forge.Kind
		scopes  []string // nil: the documented ones
		missing []string
	}{
		{forge.GitHub, nil, nil},
		{forge.GitLab, nil, nil},
		{forge.Gitea, nil, nil},
		{forge.Gitea, []string{"all"}, nil},
		// The scopes docs/forges.md listed before issue 27.
		{forge.Gitea, []string{"write:repository", "read:user"}, []string{"read:issue"}},
		{forge.Gitea, []string{"read:repository", "read:issue"}, []string{"write:repository"}},
		{forge.Gitea, []string{"read:issue"}, []string{"write:repository"}},
		{forge.GitLab, []string{"read_api"}, []string{"api"}},
	}
	for _, tc := range cases {
		t.Run(string(tc.kind), func(t *testing.T) {
			s := forgetest.New(t, tc.kind)
			s.AddRepo("acme", "widget")
			if tc.scopes != nil {
				s.SetScopes(tc.scopes...)
			}
			rep, err := forge.CheckToken(context.Background(), s.Client(t, "acme", "widget"))
			if err != nil || !slices.Equal(rep.Missing, tc.missing) {
				t.Fatalf("scopes %v: report %+v, %v; want missing %v", tc.scopes, rep, err, tc.missing)
			}
			reqs := s.Requests()
			if len(reqs) != rep.Requests {
				t.Fatalf("%d requests; the report says %d", len(reqs), rep.Requests)
			}
			for _, r := range reqs {
				if r.Method != http.MethodGet && r.Status < 400 {
					t.Fatalf("the probe changed something: %+v", r)
				}
			}
			if len(s.Pulls("acme", "widget")) != 0 {
				t.Fatal("the probe opened a pull request")
			}
		})
	}
}

// A revoked token is an error that says so.
func TestCheckToken_RevokedToken(t *testing.T) {
	each(t, func(t *testing.T, s *forgetest.Server, c forge.Client) {
		s.SetToken("another")
		_, err := forge.CheckToken(context.Background(), c)
		reason(t, err, forge.Unauthorized)
	})
}

// A fine-grained GitHub token with the permissions docs/forges.md lists
// does the whole cycle; one without Commit statuses cannot read the
// checks, and GitHub names the permission.
func TestGitHub_FineGrainedPermissions(t *testing.T) {
	ctx := context.Background()
	s := forgetest.New(t, forge.GitHub)
	s.AddRepo("acme", "widget")
	s.SetScopes(forgetest.GitHubFineGrained...)
	c := s.Client(t, "acme", "widget")
	pr, err := c.OpenPR(ctx, forge.NewPR{Title: "demo#1 Fix", Body: "Done.", Head: "bonsai/1-fix", Base: "main"})
	if err != nil {
		t.Fatal(err)
	}
	s.Review("acme", "widget", 1, "carol", forge.Approved, "")
	if _, _, err := c.Reviews(ctx, 1, ""); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Checks(ctx, pr.HeadSHA); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Merge(ctx, 1, forge.MergeRequest{Style: forge.Squash, SHA: pr.HeadSHA}); err != nil {
		t.Fatal(err)
	}
	rep, err := forge.CheckToken(ctx, c)
	if err != nil || len(rep.Missing) != 0 || rep.Unchecked == "" {
		t.Fatalf("probe of a fine-grained token: %+v, %v; want it accepted, its permissions unchecked", rep, err)
	}
	s.SetScopes("pull_requests:write", "contents:write", "checks:read")
	if rep, err := forge.CheckToken(ctx, c); err != nil || !slices.Equal(rep.Missing, []string{"Commit statuses: read"}) || rep.Requests != 4 {
		t.Fatalf("probe without Commit statuses: %+v, %v", rep, err)
	}
	_, err = c.Checks(ctx, pr.HeadSHA)
	if fe := reason(t, err, forge.Forbidden); !strings.Contains(fe.Message, "Resource not accessible by personal access token") {
		t.Fatalf("error %v", fe)
	}
}
