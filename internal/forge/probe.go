package forge

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"slices"
	"strings"
)

// TokenReport is what CheckToken found of a token.
type TokenReport struct {
	// Scopes are the token's scopes, when the forge says them.
	Scopes []string
	// Missing names what the token lacks, as the forge spells it.
	Missing []string
	// Unchecked says what the probe could not see, "" when nothing.
	Unchecked string
	// Requests is how many requests the probe made.
	Requests int
}

// CheckToken asks c's forge, without changing anything and without a
// model call, whether its token has what Bonsai needs (docs/forges.md,
// "Tokens and scopes"): GitHub names a classic token's scopes in the
// X-OAuth-Scopes header of any answer and the repository says whether
// its account may push (a fine-grained token's reads are tried, one
// route each; its writes cannot be seen); GitLab describes a token at
// /personal_access_tokens/self; Gitea names no scope, so each is tried
// on a route that needs it: the repository (read:repository), its
// issue comments (read:issue), and a pull request with no fields, which
// Gitea refuses with 422 once the scope (write:repository) let it
// through and with 403 before. An error is a refusal of the token
// itself (401) or of the repository (404).
func CheckToken(ctx context.Context, c Client) (TokenReport, error) {
	switch cl := c.(type) {
	case *github:
		return cl.checkToken(ctx)
	case *gitlab:
		return cl.checkToken(ctx)
	case *gitea:
		return cl.checkToken(ctx)
	}
	return TokenReport{Unchecked: "this forge's tokens are not checked"}, nil
}

// repoAccess is the part of a repository's answer that says what the
// token's account may do.
type repoAccess struct {
	Permissions struct {
		Admin bool `json:"admin"`
		Push  bool `json:"push"`
	} `json:"permissions"`
}

func (g *github) checkToken(ctx context.Context) (TokenReport, error) {
	var rp struct {
		repoAccess
		DefaultBranch string `json:"default_branch"`
	}
	res, err := g.do(ctx, call{op: "read the repository", method: http.MethodGet, path: g.path(""), out: &rp})
	rep := TokenReport{Requests: 1}
	if err != nil {
		return rep, err
	}
	if !rp.Permissions.Push {
		rep.Missing = append(rep.Missing, "push access to the repository")
	}
	if h := res.header.Get("X-OAuth-Scopes"); res.header.Values("X-OAuth-Scopes") != nil {
		rep.Scopes = splitList(h)
		if !slices.Contains(rep.Scopes, "repo") {
			rep.Missing = append(rep.Missing, "repo")
		}
		return rep, nil
	}
	// A fine-grained token: GitHub lists no permission, so each read is
	// tried on a route that needs it; the writes cannot be seen so.
	ref := url.PathEscape(rp.DefaultBranch)
	reads := []struct{ name, path string }{
		{"Pull requests: read", g.path("/pulls")},
		{"Commit statuses: read", g.path("/commits/%s/status", ref)},
		{"Checks: read", g.path("/commits/%s/check-runs", ref)},
	}
	for _, r := range reads {
		rep.Requests++
		_, err := g.do(ctx, call{op: "try " + r.name, method: http.MethodGet, path: r.path, query: url.Values{"per_page": {"1"}}})
		switch reason := ReasonOf(err); {
		case reason == Forbidden:
			rep.Missing = append(rep.Missing, r.name)
		case reason == Unauthorized || reason == Unavailable || reason == RateLimited || err != nil && reason == "":
			return rep, err
		}
	}
	rep.Unchecked = "GitHub does not list a fine-grained token's permissions: its reads were tried, but Pull requests and Contents read and write are seen only when used"
	return rep, nil
}

func (g *gitlab) checkToken(ctx context.Context) (TokenReport, error) {
	var tok struct {
		Scopes []string `json:"scopes"`
		Active bool     `json:"active"`
	}
	_, err := g.do(ctx, call{op: "describe the token", method: http.MethodGet, path: "/personal_access_tokens/self", out: &tok})
	rep := TokenReport{Requests: 1}
	if ReasonOf(err) == NotFound {
		rep.Unchecked = "this GitLab does not describe its tokens (before 15.5); the api scope is needed"
		return rep, nil
	}
	if err != nil {
		return rep, err
	}
	rep.Scopes = tok.Scopes
	if !slices.Contains(tok.Scopes, "api") {
		rep.Missing = append(rep.Missing, "api")
	}
	return rep, nil
}

func (g *gitea) checkToken(ctx context.Context) (TokenReport, error) {
	rep := TokenReport{Requests: 3}
	var rp repoAccess
	_, err := g.do(ctx, call{op: "read the repository", method: http.MethodGet, path: g.path(""), out: &rp})
	if missingScope(err) {
		rep.Missing = append(rep.Missing, "write:repository")
		rep.Requests = 1
		return rep, nil
	}
	if err != nil {
		return rep, err
	}
	if !rp.Permissions.Push {
		rep.Missing = append(rep.Missing, "push access to the repository")
	}
	_, err = g.do(ctx, call{op: "read issue comments", method: http.MethodGet, path: g.path("/issues/comments"), query: url.Values{"limit": {"1"}}})
	switch r := ReasonOf(err); {
	case missingScope(err):
		rep.Missing = append(rep.Missing, "read:issue")
	case r == Unauthorized || r == Unavailable || r == RateLimited || err != nil && r == "":
		return rep, err
	default:
		// Answered, or refused past the scope check (a repository whose
		// issues are turned off still has its pull requests' comments).
	}
	_, err = g.do(ctx, call{op: "try an empty pull request", method: http.MethodPost, path: g.path("/pulls"), body: map[string]any{}})
	switch r := ReasonOf(err); {
	case missingScope(err):
		rep.Missing = append(rep.Missing, "write:repository")
	case r == Forbidden:
		rep.Missing = append(rep.Missing, "the right to open pull requests")
	case err == nil:
		rep.Unchecked = "an empty pull request was not refused; check the repository's pull requests"
	case r == Unauthorized || r == Unavailable || r == RateLimited || r == "":
		return rep, err
	default:
		// Refused for its empty fields (422, or 404 for the branches),
		// past the scope check.
	}
	return rep, nil
}

// missingScope reports a 403 that names a token scope (Gitea's "token
// does not have at least one of required scope(s)").
func missingScope(err error) bool {
	var fe *Error
	return errors.As(err, &fe) && fe.Reason == Forbidden && strings.Contains(fe.Message, "scope")
}

// splitList splits a comma-separated header value.
func splitList(s string) []string {
	var out []string
	for _, f := range strings.Split(s, ",") {
		if f = strings.TrimSpace(f); f != "" {
			out = append(out, f)
		}
	}
	return out
}
