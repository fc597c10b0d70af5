package tracker

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/bonsai-run/bonsai/internal/forge"
)

// ghIssues speaks GitHub's issue routes (docs.github.com/rest/issues).
type ghIssues struct{ core *forge.Core }

type ghLogin struct {
	Login string `json:"login"`
}

type ghIssue struct {
	ID        int64     `json:"id"`
	Number    int       `json:"number"`
	Title     string    `json:"title"`
	Body      string    `json:"body"`
	HTMLURL   string    `json:"html_url"`
	State     string    `json:"state"`
	User      ghLogin   `json:"user"`
	Assignees []ghLogin `json:"assignees"`
	Labels    []struct {
		Name string `json:"name"`
	} `json:"labels"`
	UpdatedAt time.Time `json:"updated_at"`
	Comments  int       `json:"comments"`
	// PullRequest is set on the pull requests GitHub lists among issues.
	PullRequest json.RawMessage `json:"pull_request,omitempty"`
}

func (g ghIssue) issue() Issue {
	is := Issue{Ref: strconv.Itoa(g.Number), ID: strconv.FormatInt(g.ID, 10), Number: g.Number, Title: g.Title, Body: g.Body,
		URL: g.HTMLURL, State: Open, Author: g.User.Login, Updated: g.UpdatedAt, Comments: g.Comments}
	if g.State == "closed" {
		is.State = Closed
	}
	for _, l := range g.Labels {
		is.Labels = append(is.Labels, l.Name)
	}
	for _, a := range g.Assignees {
		is.Assignees = append(is.Assignees, a.Login)
	}
	return is
}

// list reads the first page (100 issues, most recently updated first)
// conditionally; only a changed list reads the pages after it. An issue
// that changes moves to the first page, so an unchanged first page is an
// unchanged list (an issue leaving the list from a later page is seen
// when the next change comes).
func (g *ghIssues) list(ctx context.Context, q Query, validator string) (List, error) {
	v := url.Values{"state": {"open"}, "sort": {"updated"}, "direction": {"desc"}, "per_page": {"100"}}
	if len(q.Labels) > 0 {
		v.Set("labels", strings.Join(q.Labels, ","))
	}
	if q.Assignee != "" {
		v.Set("assignee", q.Assignee)
	}
	return condList[ghIssue](ctx, g.core, "list issues", g.core.RepoPath("/issues"), v, validator, func(i ghIssue) (Issue, bool) {
		return i.issue(), len(i.PullRequest) == 0 || string(i.PullRequest) == "null"
	})
}

// condList reads a list of issues conditionally: the first page with
// Core.Cond, the rest (only when it changed) page by page. keep converts
// an item and says whether it is an issue (not a pull request).
func condList[T any](ctx context.Context, core *forge.Core, op, path string, q url.Values, validator string, keep func(T) (Issue, bool)) (List, error) {
	var first []T
	next, changed, ans, err := core.Cond(ctx, forge.Call{Op: op, Method: http.MethodGet, Path: path, Query: q, Out: &first}, validator)
	if err != nil {
		return List{Validator: validator}, err
	}
	if !changed {
		return List{Validator: next, NotModified: true}, nil
	}
	all := first
	if more := core.NextPage(ans.Header); more != "" {
		rest, err := forge.List[T](ctx, core, op, more, nil)
		if err != nil {
			return List{Validator: validator}, err
		}
		all = append(all, rest...)
	}
	out := List{Validator: next, Issues: []Issue{}}
	for _, it := range all {
		if is, ok := keep(it); ok {
			out.Issues = append(out.Issues, is)
		}
	}
	return out, nil
}

func (g *ghIssues) issue(ctx context.Context, n int) (Issue, error) {
	var i ghIssue
	_, err := g.core.Do(ctx, forge.Call{Op: fmt.Sprintf("read issue #%d", n), Method: http.MethodGet, Path: g.core.RepoPath("/issues/%d", n), Out: &i})
	if err != nil {
		return Issue{}, err
	}
	is := i.issue()
	if movedAway(i.HTMLURL, g.core.Repo().Path()) {
		is.Moved = i.HTMLURL // GitHub redirected a transferred issue to its new repository
	}
	return is, nil
}

type ghIssueComment struct {
	ID        int64     `json:"id"`
	User      ghLogin   `json:"user"`
	Body      string    `json:"body"`
	HTMLURL   string    `json:"html_url"`
	CreatedAt time.Time `json:"created_at"`
	UpdatedAt time.Time `json:"updated_at"`
}

func (c ghIssueComment) raw() rawComment {
	return rawComment{id: c.ID, author: c.User.Login, body: c.Body, url: c.HTMLURL, created: c.CreatedAt, updated: c.UpdatedAt}
}

func (g *ghIssues) comments(ctx context.Context, n int, since time.Time) ([]rawComment, error) {
	q := url.Values{"per_page": {"100"}}
	if !since.IsZero() {
		q.Set("since", since.UTC().Format(time.RFC3339))
	}
	cs, err := forge.List[ghIssueComment](ctx, g.core, fmt.Sprintf("read comments of #%d", n), g.core.RepoPath("/issues/%d/comments", n), q)
	out := make([]rawComment, 0, len(cs))
	for _, c := range cs {
		out = append(out, c.raw())
	}
	return out, err
}

func (g *ghIssues) post(ctx context.Context, n int, body string) (rawComment, error) {
	var c ghIssueComment
	_, err := g.core.Do(ctx, forge.Call{Op: fmt.Sprintf("comment on #%d", n), Method: http.MethodPost,
		Path: g.core.RepoPath("/issues/%d/comments", n), Body: map[string]string{"body": body}, Out: &c})
	return c.raw(), err
}

// relabel adds labels in one request (GitHub creates a label it does not
// know) and removes each in one; a label already gone is not an error.
func (g *ghIssues) relabel(ctx context.Context, n int, add, remove []string) error {
	op := fmt.Sprintf("label #%d", n)
	if len(add) > 0 {
		if _, err := g.core.Do(ctx, forge.Call{Op: op, Method: http.MethodPost, Path: g.core.RepoPath("/issues/%d/labels", n),
			Body: map[string][]string{"labels": add}}); err != nil {
			return err
		}
	}
	for _, l := range remove {
		_, err := g.core.Do(ctx, forge.Call{Op: op, Method: http.MethodDelete, Path: g.core.RepoPath("/issues/%d/labels/%s", n, url.PathEscape(l))})
		if err != nil && forge.ReasonOf(err) != forge.NotFound {
			return err
		}
	}
	return nil
}

// movedAway reports an issue page that is not in repository path (owner
// and name compared without case, as GitHub does).
func movedAway(page, path string) bool {
	return page != "" && !strings.Contains(strings.ToLower(page), "/"+strings.ToLower(path)+"/issues/")
}
