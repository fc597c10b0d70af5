package tracker

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/bonsai-run/bonsai/internal/forge"
)

// glIssues speaks GitLab's issue and note routes
// (docs.gitlab.com/api/issues, docs.gitlab.com/api/notes).
type glIssues struct{ core *forge.Core }

type glAuthor struct {
	ID       int64  `json:"id"`
	Username string `json:"username"`
}

type glIssue struct {
	ID          int64      `json:"id"`
	IID         int        `json:"iid"`
	Title       string     `json:"title"`
	Description string     `json:"description"`
	WebURL      string     `json:"web_url"`
	State       string     `json:"state"`
	Labels      []string   `json:"labels"`
	Author      glAuthor   `json:"author"`
	Assignees   []glAuthor `json:"assignees"`
	UpdatedAt   time.Time  `json:"updated_at"`
	Notes       int        `json:"user_notes_count"`
	MovedToID   *int64     `json:"moved_to_id"`
}

func (g glIssue) issue() Issue {
	is := Issue{Ref: strconv.Itoa(g.IID), ID: strconv.FormatInt(g.ID, 10), Number: g.IID, Title: g.Title, Body: g.Description,
		URL: g.WebURL, State: Open, Labels: g.Labels, Author: g.Author.Username, Updated: g.UpdatedAt, Comments: g.Notes}
	if g.State == "closed" {
		is.State = Closed
	}
	for _, a := range g.Assignees {
		is.Assignees = append(is.Assignees, a.Username)
	}
	if g.MovedToID != nil {
		is.Moved = "issue id " + strconv.FormatInt(*g.MovedToID, 10)
	}
	return is
}

func (g *glIssues) list(ctx context.Context, q Query, validator string) (List, error) {
	v := url.Values{"state": {"opened"}, "order_by": {"updated_at"}, "sort": {"desc"}, "per_page": {"100"}}
	if len(q.Labels) > 0 {
		v.Set("labels", strings.Join(q.Labels, ","))
	}
	if q.Assignee != "" {
		v.Set("assignee_username", q.Assignee)
	}
	return condList[glIssue](ctx, g.core, "list issues", g.core.RepoPath("/issues"), v, validator, func(i glIssue) (Issue, bool) {
		return i.issue(), true
	})
}

func (g *glIssues) issue(ctx context.Context, n int) (Issue, error) {
	var i glIssue
	_, err := g.core.Do(ctx, forge.Call{Op: fmt.Sprintf("read issue #%d", n), Method: http.MethodGet, Path: g.core.RepoPath("/issues/%d", n), Out: &i})
	return i.issue(), err
}

type glNote struct {
	ID        int64     `json:"id"`
	Author    glAuthor  `json:"author"`
	Body      string    `json:"body"`
	System    bool      `json:"system"`
	CreatedAt time.Time `json:"created_at"`
	UpdatedAt time.Time `json:"updated_at"`
}

func (n glNote) raw() rawComment {
	return rawComment{id: n.ID, author: n.Author.Username, authorID: n.Author.ID, body: n.Body, created: n.CreatedAt, updated: n.UpdatedAt}
}

// comments reads every note (GitLab has no "since"), leaving out the
// system notes GitLab writes itself (label changes, closing).
func (g *glIssues) comments(ctx context.Context, n int, since time.Time) ([]rawComment, error) {
	q := url.Values{"sort": {"asc"}, "order_by": {"created_at"}, "per_page": {"100"}}
	notes, err := forge.List[glNote](ctx, g.core, fmt.Sprintf("read comments of #%d", n), g.core.RepoPath("/issues/%d/notes", n), q)
	var out []rawComment
	for _, nt := range notes {
		if !nt.System {
			out = append(out, nt.raw())
		}
	}
	return out, err
}

func (g *glIssues) post(ctx context.Context, n int, body string) (rawComment, error) {
	var nt glNote
	_, err := g.core.Do(ctx, forge.Call{Op: fmt.Sprintf("comment on #%d", n), Method: http.MethodPost,
		Path: g.core.RepoPath("/issues/%d/notes", n), Body: map[string]string{"body": body}, Out: &nt})
	return nt.raw(), err
}

// relabel adds and removes labels in one edit of the issue.
func (g *glIssues) relabel(ctx context.Context, n int, add, remove []string) error {
	body := map[string]string{}
	if len(add) > 0 {
		body["add_labels"] = strings.Join(add, ",")
	}
	if len(remove) > 0 {
		body["remove_labels"] = strings.Join(remove, ",")
	}
	_, err := g.core.Do(ctx, forge.Call{Op: fmt.Sprintf("label #%d", n), Method: http.MethodPut, Path: g.core.RepoPath("/issues/%d", n), Body: body})
	return err
}
