package tracker

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/bonsai-run/bonsai/internal/forge"
)

// gtIssues speaks the issue routes of Gitea and Forgejo (/api/v1,
// their swagger). Issues, their comments and labels are the issue scope
// category; who may push (collaborators, assignees) the repository one.
type gtIssues struct {
	core *forge.Core
}

type gtIssue struct {
	ID        int64     `json:"id"`
	Number    int       `json:"number"`
	Title     string    `json:"title"`
	Body      string    `json:"body"`
	HTMLURL   string    `json:"html_url"`
	State     string    `json:"state"`
	User      ghLogin   `json:"user"`
	Assignees []ghLogin `json:"assignees"`
	Labels    []struct {
		ID   int64  `json:"id"`
		Name string `json:"name"`
	} `json:"labels"`
	UpdatedAt   time.Time       `json:"updated_at"`
	Comments    int             `json:"comments"`
	PullRequest json.RawMessage `json:"pull_request,omitempty"`
}

func (g gtIssue) issue() Issue {
	gh := ghIssue{ID: g.ID, Number: g.Number, Title: g.Title, Body: g.Body, HTMLURL: g.HTMLURL, State: g.State, User: g.User,
		Assignees: g.Assignees, UpdatedAt: g.UpdatedAt, Comments: g.Comments}
	for _, l := range g.Labels {
		gh.Labels = append(gh.Labels, struct {
			Name string `json:"name"`
		}{l.Name})
	}
	return gh.issue()
}

// list reads the open issues (type=issues leaves out pull requests).
// Gitea sends no ETag on lists and cannot sort them by update, so every
// page is read and compared by a digest of the fields read: one request
// when nothing changed and the list fits a page (50).
func (g *gtIssues) list(ctx context.Context, q Query, validator string) (List, error) {
	v := url.Values{"state": {"open"}, "type": {"issues"}, "limit": {"50"}}
	if len(q.Labels) > 0 {
		v.Set("labels", strings.Join(q.Labels, ","))
	}
	if q.Assignee != "" {
		v.Set("assigned_by", q.Assignee)
	}
	all, err := forge.List[gtIssue](ctx, g.core, "list issues", g.core.RepoPath("/issues"), v)
	if err != nil {
		return List{Validator: validator}, err
	}
	sum := digest(all)
	if sum == validator {
		return List{Validator: sum, NotModified: true}, nil
	}
	out := List{Validator: sum, Issues: []Issue{}}
	for _, i := range all {
		if len(i.PullRequest) == 0 || string(i.PullRequest) == "null" {
			out.Issues = append(out.Issues, i.issue())
		}
	}
	return out, nil
}

// digest is a validator made of the fields decoded into v.
func digest(v any) string {
	b, _ := json.Marshal(v)
	sum := sha256.Sum256(b)
	return "sum:" + hex.EncodeToString(sum[:12])
}

func (g *gtIssues) issue(ctx context.Context, n int) (Issue, error) {
	var i gtIssue
	_, err := g.core.Do(ctx, forge.Call{Op: fmt.Sprintf("read issue #%d", n), Method: http.MethodGet, Path: g.core.RepoPath("/issues/%d", n), Out: &i})
	return i.issue(), err
}

func (g *gtIssues) comments(ctx context.Context, n int, since time.Time) ([]rawComment, error) {
	var q url.Values
	if !since.IsZero() {
		q = url.Values{"since": {since.UTC().Format(time.RFC3339)}}
	}
	cs, err := forge.List[ghIssueComment](ctx, g.core, fmt.Sprintf("read comments of #%d", n), g.core.RepoPath("/issues/%d/comments", n), q)
	out := make([]rawComment, 0, len(cs))
	for _, c := range cs {
		out = append(out, c.raw())
	}
	return out, err
}

func (g *gtIssues) post(ctx context.Context, n int, body string) (rawComment, error) {
	var c ghIssueComment
	_, err := g.core.Do(ctx, forge.Call{Op: fmt.Sprintf("comment on #%d", n), Method: http.MethodPost,
		Path: g.core.RepoPath("/issues/%d/comments", n), Body: map[string]string{"body": body}, Out: &c})
	return c.raw(), err
}

type gtLabel struct {
	ID   int64  `json:"id"`
	Name string `json:"name"`
}

// relabel works with label ids, as every Gitea version takes them: the
// repository's labels are read, a missing one is created, then the
// labels are added in one request and removed one by one.
func (g *gtIssues) relabel(ctx context.Context, n int, add, remove []string) error {
	op := fmt.Sprintf("label #%d", n)
	labels, err := forge.List[gtLabel](ctx, g.core, op, g.core.RepoPath("/labels"), url.Values{"limit": {"50"}})
	if err != nil {
		return err
	}
	ids := map[string]int64{}
	for _, l := range labels {
		ids[l.Name] = l.ID
	}
	var addIDs []int64
	for _, name := range add {
		if _, ok := ids[name]; !ok {
			var l gtLabel
			if _, err := g.core.Do(ctx, forge.Call{Op: op, Method: http.MethodPost, Path: g.core.RepoPath("/labels"),
				Body: map[string]string{"name": name, "color": "#2e7d32", "description": "mirrors a Bonsai ticket's state"}, Out: &l}); err != nil {
				return err
			}
			ids[name] = l.ID
		}
		addIDs = append(addIDs, ids[name])
	}
	if len(addIDs) > 0 {
		if _, err := g.core.Do(ctx, forge.Call{Op: op, Method: http.MethodPost, Path: g.core.RepoPath("/issues/%d/labels", n),
			Body: map[string][]int64{"labels": addIDs}}); err != nil {
			return err
		}
	}
	for _, name := range remove {
		id, ok := ids[name]
		if !ok {
			continue
		}
		_, err := g.core.Do(ctx, forge.Call{Op: op, Method: http.MethodDelete, Path: g.core.RepoPath("/issues/%d/labels/%d", n, id)})
		if err != nil && forge.ReasonOf(err) != forge.NotFound {
			return err
		}
	}
	return nil
}
