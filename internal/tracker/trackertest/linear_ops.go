package trackertest

import (
	"errors"
	"slices"
	"sort"
	"strconv"
	"time"
)

var errNotFound = errors.New("Entity not found: Issue")

// ops are the operations Bonsai sends, by name.
func (l *Linear) ops() map[string]func(map[string]any) (any, error) {
	return map[string]func(map[string]any) (any, error){
		"BonsaiIssues":      l.opIssues,
		"BonsaiIssue":       l.opIssue,
		"BonsaiComments":    l.opComments,
		"BonsaiComment":     l.opCommentCreate,
		"BonsaiTeamMembers": l.opMembers,
		"BonsaiStates":      l.opStates,
		"BonsaiIssueState":  l.opIssueUpdate,
		"BonsaiViewer":      l.opViewer,
	}
}

// path digs a value out of nested variables.
func path(v any, keys ...string) any {
	for _, k := range keys {
		m, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = m[k]
	}
	return v
}

func strs(v any) []string {
	var out []string
	if list, ok := v.([]any); ok {
		for _, x := range list {
			if s, ok := x.(string); ok {
				out = append(out, s)
			}
		}
	}
	return out
}

func (l *Linear) user(id string) any {
	if id == "" {
		return nil
	}
	return map[string]any{"id": id, "name": l.users[id], "displayName": l.users[id]}
}

func (l *Linear) issueJSON(is *lnIssue) map[string]any {
	labels := []any{}
	for _, n := range is.labels {
		labels = append(labels, map[string]any{"name": n})
	}
	return map[string]any{"id": is.id, "identifier": is.identifier, "number": is.number, "title": is.title, "description": is.body,
		"url": "https://linear.app/acme/issue/" + is.identifier, "updatedAt": is.updated.Format(time.RFC3339Nano), "trashed": is.trashed,
		"state": map[string]any{"name": is.state.name, "type": is.state.kind}, "labels": map[string]any{"nodes": labels},
		"creator": l.user(is.creator), "assignee": nil, "team": map[string]any{"key": is.team.key}}
}

// page cuts a connection at the "after" cursor (an index) by the page
// size.
func (l *Linear) page(n int, after any) (start, end int, info map[string]any) {
	start, _ = strconv.Atoi(func() string { s, _ := after.(string); return s }())
	start = min(start, n)
	end = n
	if l.pageSize > 0 {
		end = min(start+l.pageSize, n)
	}
	return start, end, map[string]any{"hasNextPage": end < n, "endCursor": strconv.Itoa(end)}
}

// opIssues answers issues filtered by team key, state names and labels,
// most recently updated first; trashed ones and those of teams the key
// may not read are left out.
func (l *Linear) opIssues(v map[string]any) (any, error) {
	f := v["filter"]
	team, _ := path(f, "team", "key", "eq").(string)
	states, labels := strs(path(f, "state", "name", "in")), strs(path(f, "labels", "some", "name", "in"))
	var list []*lnIssue
	for _, is := range l.issues {
		switch {
		case is.trashed || !l.visible(is.team):
		case team != "" && is.team.key != team:
		case len(states) > 0 && !slices.Contains(states, is.state.name):
		case len(labels) > 0 && !slices.ContainsFunc(is.labels, func(s string) bool { return slices.Contains(labels, s) }):
		default:
			list = append(list, is)
		}
	}
	sort.SliceStable(list, func(i, j int) bool { return list[i].updated.After(list[j].updated) })
	start, end, info := l.page(len(list), v["after"])
	nodes := []any{}
	for _, is := range list[start:end] {
		nodes = append(nodes, l.issueJSON(is))
	}
	return map[string]any{"issues": map[string]any{"nodes": nodes, "pageInfo": info}}, nil
}

func (l *Linear) find(v map[string]any) (*lnIssue, error) {
	id, _ := v["id"].(string)
	is := l.issue(id)
	if is == nil || !l.visible(is.team) {
		return nil, errNotFound
	}
	return is, nil
}

func (l *Linear) opIssue(v map[string]any) (any, error) {
	is, err := l.find(v)
	if err != nil {
		return nil, err
	}
	return map[string]any{"issue": l.issueJSON(is)}, nil
}

func (l *Linear) commentJSON(c *lnComment) map[string]any {
	m := map[string]any{"id": c.id, "body": c.body, "url": "https://linear.app/acme/comment/" + c.id,
		"createdAt": c.created.Format(time.RFC3339Nano), "updatedAt": c.updated.Format(time.RFC3339Nano), "editedAt": nil, "user": l.user(c.user)}
	if c.edited != nil {
		m["editedAt"] = c.edited.Format(time.RFC3339Nano)
	}
	return m
}

// opComments answers an issue's team members and its comments updated
// at or after "since", oldest first.
func (l *Linear) opComments(v map[string]any) (any, error) {
	is, err := l.find(v)
	if err != nil {
		return nil, err
	}
	var since time.Time
	if s, ok := v["since"].(string); ok {
		if since, err = time.Parse(time.RFC3339Nano, s); err != nil {
			return nil, errors.New("Argument Validation Error: since is not a date")
		}
	}
	var list []*lnComment
	for _, c := range is.comments {
		if !c.updated.Before(since) {
			list = append(list, c)
		}
	}
	start, end, info := l.page(len(list), v["after"])
	nodes := []any{}
	for _, c := range list[start:end] {
		nodes = append(nodes, l.commentJSON(c))
	}
	members := []any{}
	for _, id := range is.team.members {
		members = append(members, map[string]any{"id": id})
	}
	return map[string]any{"issue": map[string]any{"team": map[string]any{"key": is.team.key, "members": map[string]any{"nodes": members}},
		"comments": map[string]any{"nodes": nodes, "pageInfo": info}}}, nil
}

// opCommentCreate comments as the key's user; issueId must be the
// issue's id.
func (l *Linear) opCommentCreate(v map[string]any) (any, error) {
	id, _ := path(v, "input", "issueId").(string)
	body, _ := path(v, "input", "body").(string)
	var is *lnIssue
	for _, x := range l.issues {
		if x.id == id && l.visible(x.team) {
			is = x
		}
	}
	if is == nil {
		return nil, errNotFound
	}
	if body == "" {
		return nil, errors.New("Argument Validation Error: body should not be empty")
	}
	return map[string]any{"commentCreate": map[string]any{"success": true, "comment": l.commentJSON(l.comment(is, l.viewer, body))}}, nil
}

func (l *Linear) opMembers(v map[string]any) (any, error) {
	key, _ := v["team"].(string)
	nodes := []any{}
	if t := l.teams[key]; t != nil && l.visible(t) {
		members := []any{}
		for _, id := range t.members {
			members = append(members, map[string]any{"id": id})
		}
		nodes = append(nodes, map[string]any{"key": key, "members": map[string]any{"nodes": members}})
	}
	return map[string]any{"teams": map[string]any{"nodes": nodes}}, nil
}

func (l *Linear) opStates(v map[string]any) (any, error) {
	key, _ := v["team"].(string)
	nodes := []any{}
	if t := l.teams[key]; t != nil && l.visible(t) {
		for _, s := range t.states {
			nodes = append(nodes, map[string]any{"id": s.id, "name": s.name, "type": s.kind})
		}
	}
	return map[string]any{"workflowStates": map[string]any{"nodes": nodes}}, nil
}

// opIssueUpdate moves an issue to a state of its own team.
func (l *Linear) opIssueUpdate(v map[string]any) (any, error) {
	is, err := l.find(v)
	if err != nil {
		return nil, err
	}
	stateID, _ := path(v, "input", "stateId").(string)
	for _, s := range is.team.states {
		if s.id == stateID {
			is.state, is.updated = s, l.tick()
			return map[string]any{"issueUpdate": map[string]any{"success": true}}, nil
		}
	}
	return nil, errors.New("Argument Validation Error: stateId is not a state of the issue's team")
}
