package tracker

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
)

// Comments reads every comment of the issue (Jira has no "since"), with
// their properties, and returns those after the cursor: a higher id, or
// an earlier one updated since (Edited). Who may steer the agent: the
// accounts that may edit the project's issues.
func (j *jira) Comments(ctx context.Context, ref, cursor string) ([]Comment, string, error) {
	cur := parseCommentCursor(cursor)
	op := "read comments of " + ref
	var all []jiraComment
	for start := 0; start < 5000; {
		var out struct {
			Comments   []jiraComment `json:"comments"`
			StartAt    int           `json:"startAt"`
			MaxResults int           `json:"maxResults"`
			Total      int           `json:"total"`
		}
		q := url.Values{"orderBy": {"created"}, "expand": {"properties"}, "startAt": {strconv.Itoa(start)}, "maxResults": {"100"}}
		if _, err := j.c.do(ctx, request{op: op, method: http.MethodGet, path: "/rest/api/3/issue/" + url.PathEscape(ref) + "/comment", query: q, out: &out}); err != nil {
			return nil, cursor, err
		}
		all = append(all, out.Comments...)
		start += len(out.Comments)
		if len(out.Comments) == 0 || start >= out.Total {
			break
		}
	}
	var res []Comment
	authors := map[string]bool{}
	next := cur
	for _, c := range all {
		id, err := strconv.ParseInt(c.ID, 10, 64)
		if err != nil {
			continue
		}
		r := rawComment{id: id, updated: c.Updated.Time}
		edited := id <= cur.last && r.updated.After(cur.since)
		if id <= cur.last && !edited {
			continue
		}
		next.pass(r)
		cm := c.comment(j.site, ref)
		cm.Edited = edited
		cm.Ours = c.marked() && (j.login == "" || cm.AuthorID == j.login)
		if !cm.Ours && cm.AuthorID != "" {
			authors[cm.AuthorID] = true
		}
		res = append(res, cm)
	}
	if len(authors) > 0 {
		ids := make([]string, 0, len(authors))
		for a := range authors {
			ids = append(ids, a)
		}
		acc, err := j.writers(ctx, ref, ids)
		if err != nil {
			return nil, cursor, err
		}
		for i := range res {
			if !res[i].Ours {
				res[i].Writer = acc[res[i].AuthorID] == AccessWrite
			}
		}
	}
	return res, next.String(), nil
}

// Comment posts body as ADF with Bonsai's comment property.
func (j *jira) Comment(ctx context.Context, ref, body string) (Comment, error) {
	in := map[string]any{"body": MarkdownToADF(Unmark(body)), "properties": []any{map[string]any{"key": jiraMarker, "value": map[string]any{"by": "bonsai"}}}}
	var c jiraComment
	if _, err := j.c.do(ctx, request{op: "comment on " + ref, method: http.MethodPost, path: "/rest/api/3/issue/" + url.PathEscape(ref) + "/comment", body: in, out: &c}); err != nil {
		return Comment{}, err
	}
	out := c.comment(j.site, ref)
	out.Ours, out.Writer = true, true
	return out, nil
}

// Writers tells which accounts may edit the issues of the project
// Options.Team names (ids are account ids).
func (j *jira) Writers(ctx context.Context, ids []string) (map[string]Access, error) {
	return j.writers(ctx, "", ids)
}

// writers asks Jira, one request per account, whether it holds
// EDIT_ISSUES on the issue (or on the project, without one).
func (j *jira) writers(ctx context.Context, issueKey string, ids []string) (map[string]Access, error) {
	q := url.Values{"permissions": {"EDIT_ISSUES"}}
	switch {
	case issueKey != "":
		q.Set("issueKey", issueKey)
	case j.project != "":
		q.Set("projectKey", j.project)
	default:
		return nil, &Error{Tracker: Jira, Op: "read the permissions of commenters", Reason: Invalid, Message: "no Jira project is configured"}
	}
	out := map[string]Access{}
	for _, id := range ids {
		out[id] = AccessRead
		var users []jiraUser
		q.Set("accountId", id)
		if _, err := j.c.do(ctx, request{op: "read the permissions of commenters", method: http.MethodGet, path: "/rest/api/3/user/permission/search", query: q, out: &users}); err != nil {
			return nil, err
		}
		for _, u := range users {
			if u.AccountID == id {
				out[id] = AccessWrite
			}
		}
	}
	return out, nil
}

// Mirror takes the transition that leads to the status the ticket's
// state maps to.
func (j *jira) Mirror(ctx context.Context, is Issue, state string) error {
	want := j.state[state]
	if want == "" || strings.EqualFold(want, is.Status) {
		return nil
	}
	op := fmt.Sprintf("move %s to %q", is.Ref, want)
	path := "/rest/api/3/issue/" + url.PathEscape(is.Ref) + "/transitions"
	var out struct {
		Transitions []struct {
			ID   string `json:"id"`
			Name string `json:"name"`
			To   struct {
				Name string `json:"name"`
			} `json:"to"`
		} `json:"transitions"`
	}
	if _, err := j.c.do(ctx, request{op: op, method: http.MethodGet, path: path, out: &out}); err != nil {
		return err
	}
	for _, t := range out.Transitions {
		if strings.EqualFold(t.To.Name, want) {
			_, err := j.c.do(ctx, request{op: op, method: http.MethodPost, path: path, body: map[string]any{"transition": map[string]string{"id": t.ID}}})
			return err
		}
	}
	return &Error{Tracker: Jira, Op: op, Reason: Invalid, Message: fmt.Sprintf("no transition from %q leads to %q", is.Status, want)}
}
