package forgetest

import (
	"net/http"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/bonsai-run/bonsai/internal/forge"
)

// githubIssues serves GitHub's issue routes (docs.github.com/rest/issues)
// and a collaborator's permission.
func (s *Server) githubIssues(mux *http.ServeMux) {
	const base = "/api/v3/repos/{owner}/{repo}"
	mux.HandleFunc("GET "+base+"/issues", s.ghIssueList)
	mux.HandleFunc("GET "+base+"/issues/{number}", s.ghIssueGet)
	mux.HandleFunc("POST "+base+"/issues/{number}/comments", s.ghIssueCommentCreate)
	mux.HandleFunc("POST "+base+"/issues/{number}/labels", s.ghIssueLabelsAdd)
	mux.HandleFunc("DELETE "+base+"/issues/{number}/labels/{name}", s.ghIssueLabelRemove)
	mux.HandleFunc("GET "+base+"/collaborators/{user}/permission", s.ghPermission)
	mux.HandleFunc("GET /api/v3/user", s.whoami)
}

func (s *Server) ghIssueJSON(full string, is *issue) map[string]any {
	labels := []map[string]any{}
	for _, l := range is.labels {
		labels = append(labels, map[string]any{"name": l, "color": "ededed"})
	}
	assignees := []map[string]any{}
	for _, a := range is.assignees {
		assignees = append(assignees, user(a))
	}
	n := 0
	for _, c := range is.comments {
		if !c.system {
			n++
		}
	}
	m := map[string]any{
		"id": is.id, "number": is.number, "title": is.title, "body": is.body, "state": "open",
		"url":      s.API() + "/repos/" + full + "/issues/" + itoa(is.number),
		"html_url": s.URL + "/" + full + "/issues/" + itoa(is.number),
		"user":     user(is.author), "labels": labels, "assignees": assignees, "comments": n,
		"author_association": s.association(is.author),
		"created_at":         stamp(is.created), "updated_at": stamp(is.updated), "closed_at": nil,
	}
	if is.closed {
		m["state"], m["closed_at"] = "closed", stamp(is.updated)
	}
	return m
}

// ghPullAsIssue is a pull request as GitHub lists it among issues: with
// a pull_request object, which is how a client tells the two apart.
func (s *Server) ghPullAsIssue(rp *repo, p *pull) map[string]any {
	full := rp.owner + "/" + rp.name
	state := "open"
	if p.state != forge.Open {
		state = "closed"
	}
	return map[string]any{"id": 9000 + p.number, "number": p.number, "title": p.title, "body": p.body, "state": state,
		"html_url": s.URL + "/" + full + "/pull/" + itoa(p.number), "user": user("bonsai"), "labels": []any{}, "assignees": []any{},
		"updated_at":   stamp(p.updated),
		"pull_request": map[string]any{"url": s.API() + "/repos/" + full + "/pulls/" + itoa(p.number), "html_url": s.URL + "/" + full + "/pull/" + itoa(p.number)}}
}

// ghIssueList answers the repository's issues and pull requests (GitHub
// lists both), filtered by state, labels and assignee, sorted by update
// or creation, with an ETag.
func (s *Server) ghIssueList(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	full := fullName(r)
	if !s.issuesVisible(w, full) {
		return
	}
	q := r.URL.Query()
	type item struct {
		at int64
		m  map[string]any
	}
	var items []item
	for _, is := range s.issuesOf(full).issues {
		if is.matches(q.Get("state"), q.Get("labels"), q.Get("assignee")) {
			at := is.updated
			if q.Get("sort") != "updated" {
				at = is.created
			}
			items = append(items, item{at.UnixNano(), s.ghIssueJSON(full, is)})
		}
	}
	if q.Get("labels") == "" && q.Get("assignee") == "" {
		for _, p := range s.repos[full].pulls {
			open := p.state == forge.Open
			if st := q.Get("state"); st == "all" || (st == "closed") != open {
				items = append(items, item{p.updated.UnixNano(), s.ghPullAsIssue(s.repos[full], p)})
			}
		}
	}
	sort.SliceStable(items, func(i, j int) bool {
		if q.Get("direction") == "asc" {
			return items[i].at < items[j].at
		}
		return items[i].at > items[j].at
	})
	out := []map[string]any{}
	for _, it := range items {
		out = append(out, it.m)
	}
	s.writeCached(w, r, s.paginate(w, r, out))
}

func (s *Server) ghIssueGet(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if is, ok := s.findIssue(w, r, fullName(r), r.PathValue("number")); ok {
		s.writeCached(w, r, s.ghIssueJSON(fullName(r), is))
	}
}

// ghIssueComments answers an issue's comments (since filters by update
// time), or a pull request's conversation for a pull request's number.
func (s *Server) ghIssueComments(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	n, _ := strconv.Atoi(r.PathValue("number"))
	isIssue := n >= firstIssue && s.issueByNumber(fullName(r), n) != nil
	s.mu.Unlock()
	if !isIssue {
		s.ghTalk(w, r)
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	full := fullName(r)
	is, ok := s.findIssue(w, r, full, r.PathValue("number"))
	if !ok {
		return
	}
	keep := sinceFilter(r)
	out := []map[string]any{}
	for _, c := range is.comments {
		if !c.system && keep(c) {
			out = append(out, s.ghIssueCommentJSON(full, is, c))
		}
	}
	s.writeCached(w, r, s.paginate(w, r, out))
}

func (s *Server) ghIssueCommentJSON(full string, is *issue, c *issueComment) map[string]any {
	return map[string]any{"id": c.id, "user": user(c.user), "body": c.body, "author_association": s.association(c.user),
		"html_url":   s.URL + "/" + full + "/issues/" + itoa(is.number) + "#issuecomment-" + itoa64(c.id),
		"created_at": stamp(c.created), "updated_at": stamp(c.updated)}
}

// ghIssueCommentCreate comments as the token's user; an empty body is
// refused with 422 as GitHub does.
func (s *Server) ghIssueCommentCreate(w http.ResponseWriter, r *http.Request) {
	var in struct {
		Body string `json:"body"`
	}
	if err := readJSON(r, &in); err != nil {
		writeJSON(w, http.StatusBadRequest, map[string]any{"message": "Problems parsing JSON"})
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	is, ok := s.findIssue(w, r, fullName(r), r.PathValue("number"))
	if !ok {
		return
	}
	if strings.TrimSpace(in.Body) == "" {
		writeJSON(w, http.StatusUnprocessableEntity, map[string]any{"message": "Validation Failed", "errors": []any{map[string]any{"resource": "IssueComment", "code": "missing_field", "field": "body"}}})
		return
	}
	c := s.addIssueComment(is, s.caller, in.Body, false)
	writeJSON(w, http.StatusCreated, s.ghIssueCommentJSON(fullName(r), is, c))
}

// ghIssueLabelsAdd adds labels, creating the ones the repository lacks,
// and answers the issue's labels.
func (s *Server) ghIssueLabelsAdd(w http.ResponseWriter, r *http.Request) {
	var in struct {
		Labels []string `json:"labels"`
	}
	if err := readJSON(r, &in); err != nil || len(in.Labels) == 0 {
		writeJSON(w, http.StatusUnprocessableEntity, map[string]any{"message": "Invalid request.\n\nNo subschema in \"anyOf\" matched."})
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	is, ok := s.findIssue(w, r, fullName(r), r.PathValue("number"))
	if !ok {
		return
	}
	ir := s.issuesOf(fullName(r))
	for _, l := range in.Labels {
		s.knowLabel(ir, l)
		if !slices.Contains(is.labels, l) {
			is.labels = append(is.labels, l)
		}
	}
	is.updated = s.tick()
	writeJSON(w, http.StatusOK, s.ghIssueJSON(fullName(r), is)["labels"])
}

// ghIssueLabelRemove removes a label; 404 "Label does not exist" when
// the issue lacks it.
func (s *Server) ghIssueLabelRemove(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	is, ok := s.findIssue(w, r, fullName(r), r.PathValue("number"))
	if !ok {
		return
	}
	i := slices.Index(is.labels, r.PathValue("name"))
	if i < 0 {
		writeJSON(w, http.StatusNotFound, map[string]any{"message": "Label does not exist"})
		return
	}
	is.labels = slices.Delete(is.labels, i, i+1)
	is.updated = s.tick()
	writeJSON(w, http.StatusOK, s.ghIssueJSON(fullName(r), is)["labels"])
}

// ghPermission answers a user's permission: admin for the repository's
// owner, read for the outsiders, write for everyone else.
func (s *Server) ghPermission(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	rp, _, ok := s.find(w, fullName(r), "")
	if !ok {
		return
	}
	name := r.PathValue("user")
	perm, role := "write", "write"
	switch {
	case name == rp.owner:
		perm, role = "admin", "admin"
	case s.outsiders[name]:
		perm, role = "read", "read"
	}
	writeJSON(w, http.StatusOK, map[string]any{"permission": perm, "role_name": role, "user": user(name)})
}
