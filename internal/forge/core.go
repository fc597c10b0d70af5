package forge

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
)

// Core is the HTTP core the pull request clients use, opened for the
// packages that speak other parts of a forge's API (internal/tracker reads
// and writes issues through it): the token only to the API host, the
// forge's headers, Retry-After waited out up to Options.MaxWait, error
// answers turned into *Error, Link pagination, and conditional reads
// with ETags or a digest of the fields read.
type Core struct {
	a *api
	// g decides write access on Gitea, remembering across calls that the
	// token may not read other users' permissions.
	g *gitea
}

// NewCore returns the core of repository r on its forge.
func NewCore(r Repo, o Options) (*Core, error) {
	c, err := New(r, o)
	if err != nil {
		return nil, err
	}
	switch v := c.(type) {
	case *github:
		return &Core{a: v.api}, nil
	case *gitlab:
		return &Core{a: v.api}, nil
	case *gitea:
		return &Core{a: v.api, g: v}, nil
	}
	return nil, fmt.Errorf("forge: no core for %q", r.Kind)
}

// Repo is the repository the core works on.
func (c *Core) Repo() Repo { return c.a.repo }

// Call is one request through a Core.
type Call struct {
	// Op names the operation in errors ("list issues", "comment on #4").
	Op     string
	Method string
	// Path is below the API base URL, or an absolute URL on the API host
	// (a next page).
	Path  string
	Query url.Values
	// Body is sent as JSON when not nil.
	Body any
	// Out receives the decoded JSON answer when not nil.
	Out any
}

// Answer is what a request returned besides its decoded body.
type Answer struct {
	Status int
	Header http.Header
}

// Do runs one request; a short Retry-After is waited out once.
func (c *Core) Do(ctx context.Context, k Call) (Answer, error) {
	res, err := c.a.do(ctx, c.call(k))
	return Answer{Status: res.status, Header: res.header}, err
}

// Cond runs a GET conditionally against validator (kept from the last
// answer; "" the first time): one request, answered 304 when the forge's
// ETag still holds, else compared by a digest of the fields k.Out
// declares. changed is false when nothing read changed (k.Out is then
// untouched or the same); next is the validator to keep either way.
func (c *Core) Cond(ctx context.Context, k Call, validator string) (next string, changed bool, a Answer, err error) {
	cl := c.call(k)
	etag, sum := splitValidator(validator)
	cl.etag = etag
	res, err := c.a.do(ctx, cl)
	a = Answer{Status: res.status, Header: res.header}
	if err != nil {
		return validator, false, a, err
	}
	if res.status == http.StatusNotModified {
		return validator, false, a, nil
	}
	now := digestOf(k.Out)
	return joinValidator(res.header.Get("ETag"), now), now != sum, a, nil
}

func joinValidator(etag, sum string) string {
	if etag == "" {
		return sum
	}
	return etag + " " + sum
}

// NextPage returns the rel="next" link of an answer when it is on the
// API host, else "".
func (c *Core) NextPage(h http.Header) string { return c.a.nextPage(h) }

// List reads every page (up to 50) of a list into a slice of T.
func List[T any](ctx context.Context, c *Core, op, path string, q url.Values) ([]T, error) {
	return list[T](ctx, c.a, op, path, q)
}

func (c *Core) call(k Call) call {
	return call{op: k.Op, method: k.Method, path: k.Path, query: k.Query, body: k.Body, out: k.Out}
}

// RepoPath is a path below the repository on the API: /repos/{owner}/{name}
// on GitHub and Gitea, /projects/{url-encoded path} on GitLab, followed
// by format.
func (c *Core) RepoPath(format string, args ...any) string {
	if c.a.repo.Kind == GitLab {
		return (&gitlab{c.a}).path(format, args...)
	}
	return (&github{c.a}).path(format, args...)
}
