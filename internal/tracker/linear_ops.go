package tracker

import (
	"context"
	"fmt"
	"sort"
	"time"
)

type lnUser struct {
	ID          string `json:"id"`
	Name        string `json:"name"`
	DisplayName string `json:"displayName"`
}

func (u *lnUser) name() string {
	switch {
	case u == nil:
		return ""
	case u.DisplayName != "":
		return u.DisplayName
	}
	return u.Name
}

type lnIssue struct {
	ID          string    `json:"id"`
	Identifier  string    `json:"identifier"`
	Number      float64   `json:"number"`
	Title       string    `json:"title"`
	Description string    `json:"description"`
	URL         string    `json:"url"`
	UpdatedAt   time.Time `json:"updatedAt"`
	Trashed     bool      `json:"trashed"`
	State       struct {
		Name string `json:"name"`
		Type string `json:"type"`
	} `json:"state"`
	Labels struct {
		Nodes []struct {
			Name string `json:"name"`
		} `json:"nodes"`
	} `json:"labels"`
	Creator  *lnUser `json:"creator"`
	Assignee *lnUser `json:"assignee"`
}

func (i lnIssue) issue() Issue {
	is := Issue{Ref: i.Identifier, ID: i.ID, Number: int(i.Number), Title: i.Title, Body: i.Description, URL: i.URL,
		State: Open, Status: i.State.Name, Author: i.Creator.name(), Updated: i.UpdatedAt}
	if i.State.Type == "completed" || i.State.Type == "canceled" {
		is.State = Closed
	}
	for _, l := range i.Labels.Nodes {
		is.Labels = append(is.Labels, l.Name)
	}
	if i.Assignee != nil {
		is.Assignees = []string{i.Assignee.name()}
	}
	return is
}

type lnPage struct {
	HasNextPage bool   `json:"hasNextPage"`
	EndCursor   string `json:"endCursor"`
}

// List reads the team's issues in the query's states (and with one of
// its labels), every page, and compares them by a digest of the fields
// read: Linear's GraphQL has no ETag. One request when nothing changed
// and they fit a page (50).
func (l *linear) List(ctx context.Context, q Query, validator string) (List, error) {
	filter := map[string]any{}
	if q.Team != "" {
		filter["team"] = map[string]any{"key": map[string]any{"eq": q.Team}}
	}
	if len(q.States) > 0 {
		filter["state"] = map[string]any{"name": map[string]any{"in": q.States}}
	}
	if len(q.Labels) > 0 {
		filter["labels"] = map[string]any{"some": map[string]any{"name": map[string]any{"in": q.Labels}}}
	}
	var all []lnIssue
	after := any(nil)
	for page := 0; page < 50; page++ {
		var out struct {
			Issues struct {
				Nodes    []lnIssue `json:"nodes"`
				PageInfo lnPage    `json:"pageInfo"`
			} `json:"issues"`
		}
		if err := l.gql(ctx, "list issues", lnListQuery, map[string]any{"filter": filter, "after": after}, &out); err != nil {
			return List{Validator: validator}, err
		}
		all = append(all, out.Issues.Nodes...)
		if !out.Issues.PageInfo.HasNextPage {
			break
		}
		after = out.Issues.PageInfo.EndCursor
	}
	sum := digest(all)
	if sum == validator {
		return List{Validator: sum, NotModified: true}, nil
	}
	res := List{Validator: sum, Issues: []Issue{}}
	for _, i := range all {
		l.remember(i)
		res.Issues = append(res.Issues, i.issue())
	}
	return res, nil
}

func (l *linear) remember(i lnIssue) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.ids[i.Identifier] = i.ID
}

// Issue reads one issue; one moved to the trash is Gone.
func (l *linear) Issue(ctx context.Context, ref string) (Issue, error) {
	var out struct {
		Issue *lnIssue `json:"issue"`
	}
	op := "read issue " + ref
	if err := l.gql(ctx, op, lnIssueQuery, map[string]any{"id": ref}, &out); err != nil {
		return Issue{}, err
	}
	if out.Issue == nil {
		return Issue{}, &Error{Tracker: Linear, Op: op, Reason: NotFound, Message: "Entity not found: Issue"}
	}
	if out.Issue.Trashed {
		return Issue{}, &Error{Tracker: Linear, Op: op, Reason: Gone, Message: "the issue is in Linear's trash"}
	}
	l.remember(*out.Issue)
	is := out.Issue.issue()
	if ref != out.Issue.ID && is.Ref != ref {
		is.Moved = is.Ref // moved to another team: a new identifier
	}
	return is, nil
}

func (l *linear) idOf(ref string) string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.ids[ref]
}

type lnComment struct {
	ID        string     `json:"id"`
	Body      string     `json:"body"`
	URL       string     `json:"url"`
	CreatedAt time.Time  `json:"createdAt"`
	UpdatedAt time.Time  `json:"updatedAt"`
	EditedAt  *time.Time `json:"editedAt"`
	User      *lnUser    `json:"user"`
}

func (c lnComment) comment() Comment {
	out := Comment{ID: c.ID, Author: c.User.name(), Body: c.Body, URL: c.URL, Created: c.CreatedAt, Updated: c.UpdatedAt}
	if c.User != nil {
		out.AuthorID = c.User.ID
	}
	return out
}

// Comments reads the comments updated since the cursor, with the
// members of the issue's team in the same request: a member's comment
// may reach the agent. A comment with no user (an integration's) is
// nobody's.
func (l *linear) Comments(ctx context.Context, ref, cursor string) ([]Comment, string, error) {
	cur := parseTimeCursor(cursor)
	vars := map[string]any{"id": ref}
	if !cur.since.IsZero() {
		vars["since"] = cur.since.Format(time.RFC3339Nano)
	}
	members := map[string]bool{}
	var all []lnComment
	for page := 0; page < 50; page++ {
		var out struct {
			Issue *struct {
				Team struct {
					Members struct {
						Nodes []struct {
							ID string `json:"id"`
						} `json:"nodes"`
					} `json:"members"`
				} `json:"team"`
				Comments struct {
					Nodes    []lnComment `json:"nodes"`
					PageInfo lnPage      `json:"pageInfo"`
				} `json:"comments"`
			} `json:"issue"`
		}
		op := "read comments of " + ref
		if err := l.gql(ctx, op, lnCommentsQuery, vars, &out); err != nil {
			return nil, cursor, err
		}
		if out.Issue == nil {
			return nil, cursor, &Error{Tracker: Linear, Op: op, Reason: NotFound, Message: "Entity not found: Issue"}
		}
		for _, m := range out.Issue.Team.Members.Nodes {
			members[m.ID] = true
		}
		all = append(all, out.Issue.Comments.Nodes...)
		if !out.Issue.Comments.PageInfo.HasNextPage {
			break
		}
		vars["after"] = out.Issue.Comments.PageInfo.EndCursor
	}
	sort.SliceStable(all, func(i, j int) bool { return all[i].CreatedAt.Before(all[j].CreatedAt) })
	var res []Comment
	next := parseTimeCursor(cursor)
	for _, c := range all {
		if cur.seen(c.ID, c.UpdatedAt) {
			continue
		}
		next.pass(c.ID, c.UpdatedAt)
		cm := c.comment()
		cm.Edited = cur.known(c.ID, c.CreatedAt)
		cm.Ours = HasMarker(c.Body) && (l.login == "" || cm.AuthorID == l.login)
		cm.Writer = cm.Ours || c.User != nil && members[c.User.ID]
		res = append(res, cm)
	}
	return res, next.String(), nil
}

// Comment posts body on issue ref with commentCreate, marked.
func (l *linear) Comment(ctx context.Context, ref, body string) (Comment, error) {
	op := "comment on " + ref
	id, err := l.issueID(ctx, ref)
	if err != nil {
		return Comment{}, err
	}
	var out struct {
		CommentCreate struct {
			Success bool      `json:"success"`
			Comment lnComment `json:"comment"`
		} `json:"commentCreate"`
	}
	if err := l.gql(ctx, op, lnCommentCreate, map[string]any{"input": map[string]any{"issueId": id, "body": Mark(body)}}, &out); err != nil {
		return Comment{}, err
	}
	if !out.CommentCreate.Success {
		return Comment{}, &Error{Tracker: Linear, Op: op, Reason: Invalid, Message: "commentCreate did not succeed"}
	}
	c := out.CommentCreate.Comment.comment()
	c.Ours, c.Writer = true, true
	return c, nil
}

// issueID is the id of the issue an identifier names, read once.
func (l *linear) issueID(ctx context.Context, ref string) (string, error) {
	if id := l.idOf(ref); id != "" {
		return id, nil
	}
	is, err := l.Issue(ctx, ref)
	return is.ID, err
}

// Writers tells which user ids are members of the team (o.Team).
func (l *linear) Writers(ctx context.Context, ids []string) (map[string]Access, error) {
	if l.team == "" {
		return nil, &Error{Tracker: Linear, Op: "read the team's members", Reason: Invalid, Message: "no Linear team is configured"}
	}
	var out struct {
		Teams struct {
			Nodes []struct {
				Members struct {
					Nodes []struct {
						ID string `json:"id"`
					} `json:"nodes"`
				} `json:"members"`
			} `json:"nodes"`
		} `json:"teams"`
	}
	if err := l.gql(ctx, "read the team's members", lnMembersQuery, map[string]any{"team": l.team}, &out); err != nil {
		return nil, err
	}
	members := map[string]bool{}
	for _, t := range out.Teams.Nodes {
		for _, m := range t.Members.Nodes {
			members[m.ID] = true
		}
	}
	res := map[string]Access{}
	for _, id := range ids {
		res[id] = AccessRead
		if members[id] {
			res[id] = AccessWrite
		}
	}
	return res, nil
}

// Mirror moves the issue to the workflow state its ticket's state maps
// to, found by name among the team's states.
func (l *linear) Mirror(ctx context.Context, is Issue, state string) error {
	want := l.state[state]
	if want == "" || want == is.Status {
		return nil
	}
	op := fmt.Sprintf("move %s to %q", is.Ref, want)
	var states struct {
		WorkflowStates struct {
			Nodes []struct {
				ID   string `json:"id"`
				Name string `json:"name"`
			} `json:"nodes"`
		} `json:"workflowStates"`
	}
	if err := l.gql(ctx, op, lnStatesQuery, map[string]any{"team": l.team}, &states); err != nil {
		return err
	}
	stateID := ""
	for _, s := range states.WorkflowStates.Nodes {
		if s.Name == want {
			stateID = s.ID
		}
	}
	if stateID == "" {
		return &Error{Tracker: Linear, Op: op, Reason: Invalid, Message: fmt.Sprintf("team %s has no workflow state %q", l.team, want)}
	}
	var out struct {
		IssueUpdate struct {
			Success bool `json:"success"`
		} `json:"issueUpdate"`
	}
	return l.gql(ctx, op, lnIssueUpdate, map[string]any{"id": is.ID, "input": map[string]any{"stateId": stateID}}, &out)
}
