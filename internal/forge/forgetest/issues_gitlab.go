package forgetest

import (
	"net/http"
	"slices"
	"sort"
	"strings"
)

// gitlabIssues serves GitLab's issue and note routes
// (docs.gitlab.com/api/issues, docs.gitlab.com/api/notes).
func (s *Server) gitlabIssues(mux *http.ServeMux) {
	const base = "/api/v4/projects/{id}"
	mux.HandleFunc("GET "+base+"/issues", s.glIssueList)
	mux.HandleFunc("GET "+base+"/issues/{iid}", s.glIssueGet)
	mux.HandleFunc("PUT "+base+"/issues/{iid}", s.glIssueUpdate)
	mux.HandleFunc("GET "+base+"/issues/{iid}/notes", s.glIssueNotes)
	mux.HandleFunc("POST "+base+"/issues/{iid}/notes", s.glIssueNoteCreate)
	mux.HandleFunc("GET /api/v4/users", s.glUsers)
	mux.HandleFunc("GET /api/v4/user", s.whoami)
}

// glUsers answers the users named by ?username= (every user the fake
// knows of, and the token's).
func (s *Server) glUsers(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	want := r.URL.Query().Get("username")
	out := []map[string]any{}
	if want != "" && (want == s.caller || slices.Contains(s.knownUsers(), want)) {
		out = append(out, glUser(want))
	}
	writeJSON(w, http.StatusOK, out)
}

func (s *Server) glIssueJSON(full string, is *issue) map[string]any {
	assignees := []map[string]any{}
	for _, a := range is.assignees {
		assignees = append(assignees, glUser(a))
	}
	n := 0
	for _, c := range is.comments {
		if !c.system {
			n++
		}
	}
	m := map[string]any{
		"id": is.id, "iid": is.number, "title": is.title, "description": is.body, "state": "opened",
		"labels": append([]string{}, is.labels...), "author": glUser(is.author), "assignees": assignees,
		"web_url":    s.URL + "/" + full + "/-/issues/" + itoa(is.number),
		"created_at": stamp(is.created), "updated_at": stamp(is.updated), "user_notes_count": n, "moved_to_id": nil,
	}
	if is.closed {
		m["state"] = "closed"
	}
	if is.movedID != 0 {
		m["moved_to_id"] = is.movedID
	}
	return m
}

// glIssueList answers issues filtered by state, labels and
// assignee_username, ordered by order_by (created_at by default) and
// sort (desc by default), with an ETag.
func (s *Server) glIssueList(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	full := r.PathValue("id")
	if !s.issuesVisible(w, full) {
		return
	}
	q := r.URL.Query()
	var list []*issue
	for _, is := range s.issuesOf(full).issues {
		if is.matches(q.Get("state"), q.Get("labels"), q.Get("assignee_username")) {
			list = append(list, is)
		}
	}
	sort.SliceStable(list, func(i, j int) bool {
		a, b := list[i].created, list[j].created
		if q.Get("order_by") == "updated_at" {
			a, b = list[i].updated, list[j].updated
		}
		if q.Get("sort") == "asc" {
			return a.Before(b)
		}
		return a.After(b)
	})
	out := []map[string]any{}
	for _, is := range list {
		out = append(out, s.glIssueJSON(full, is))
	}
	s.writeCached(w, r, s.paginate(w, r, out))
}

func (s *Server) glIssueGet(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if is, ok := s.findIssue(w, r, r.PathValue("id"), r.PathValue("iid")); ok {
		s.writeCached(w, r, s.glIssueJSON(r.PathValue("id"), is))
	}
}

// glIssueUpdate edits labels (labels, add_labels, remove_labels: comma
// separated; a new label is created) and the state (state_event close
// or reopen).
func (s *Server) glIssueUpdate(w http.ResponseWriter, r *http.Request) {
	var in struct {
		Labels       *string `json:"labels"`
		AddLabels    string  `json:"add_labels"`
		RemoveLabels string  `json:"remove_labels"`
		StateEvent   string  `json:"state_event"`
	}
	if err := readJSON(r, &in); err != nil {
		writeJSON(w, http.StatusBadRequest, map[string]any{"message": "400 Bad request"})
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	full := r.PathValue("id")
	is, ok := s.findIssue(w, r, full, r.PathValue("iid"))
	if !ok {
		return
	}
	if in.Labels != nil {
		is.labels = nil
		in.AddLabels = *in.Labels
	}
	for _, l := range splitList(in.AddLabels) {
		s.knowLabel(s.issuesOf(full), l)
		if !slices.Contains(is.labels, l) {
			is.labels = append(is.labels, l)
		}
	}
	for _, l := range splitList(in.RemoveLabels) {
		if i := slices.Index(is.labels, l); i >= 0 {
			is.labels = slices.Delete(is.labels, i, i+1)
		}
	}
	switch in.StateEvent {
	case "close":
		is.closed = true
	case "reopen":
		is.closed = false
	}
	is.updated = s.tick()
	writeJSON(w, http.StatusOK, s.glIssueJSON(full, is))
}

func splitList(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

func (s *Server) glNoteJSON(is *issue, c *issueComment) map[string]any {
	return map[string]any{"id": c.id, "body": c.body, "author": glUser(c.user), "system": c.system,
		"noteable_type": "Issue", "noteable_iid": is.number, "created_at": stamp(c.created), "updated_at": stamp(c.updated)}
}

// glIssueNotes answers an issue's notes, the system notes GitLab writes
// itself among them, newest first unless sort=asc.
func (s *Server) glIssueNotes(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	is, ok := s.findIssue(w, r, r.PathValue("id"), r.PathValue("iid"))
	if !ok {
		return
	}
	notes := append([]*issueComment(nil), is.comments...)
	if r.URL.Query().Get("sort") != "asc" {
		slices.Reverse(notes)
	}
	out := []map[string]any{}
	for _, c := range notes {
		out = append(out, s.glNoteJSON(is, c))
	}
	s.writeCached(w, r, s.paginate(w, r, out))
}

// glIssueNoteCreate adds a note as the token's user; an empty body is
// refused with 400.
func (s *Server) glIssueNoteCreate(w http.ResponseWriter, r *http.Request) {
	var in struct {
		Body string `json:"body"`
	}
	if err := readJSON(r, &in); err != nil || strings.TrimSpace(in.Body) == "" {
		writeJSON(w, http.StatusBadRequest, map[string]any{"message": "400 Bad request - Note can't be blank"})
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	is, ok := s.findIssue(w, r, r.PathValue("id"), r.PathValue("iid"))
	if !ok {
		return
	}
	writeJSON(w, http.StatusCreated, s.glNoteJSON(is, s.addIssueComment(is, s.caller, in.Body, false)))
}
