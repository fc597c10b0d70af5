package forgetest

import (
	"encoding/json"
	"net/http"
	"regexp"
	"slices"
	"sort"
	"strconv"

	"github.com/bonsai-run/bonsai/internal/forge"
)

// giteaIssues serves the issue routes of Gitea (/api/v1, its swagger):
// issues, their comments and labels, which are the issue scope category
// (the repository's labels too).
func (s *Server) giteaIssues(mux *http.ServeMux) {
	const base = "/api/v1/repos/{owner}/{repo}"
	mux.HandleFunc("GET "+base+"/issues", s.gtIssueList)
	mux.HandleFunc("GET "+base+"/issues/{number}", s.gtIssueGet)
	mux.HandleFunc("POST "+base+"/issues/{number}/comments", s.gtIssueCommentCreate)
	mux.HandleFunc("POST "+base+"/issues/{number}/labels", s.gtIssueLabelsAdd)
	mux.HandleFunc("DELETE "+base+"/issues/{number}/labels/{id}", s.gtIssueLabelRemove)
	mux.HandleFunc("GET "+base+"/labels", s.gtLabels)
	mux.HandleFunc("POST "+base+"/labels", s.gtLabelCreate)
	mux.HandleFunc("GET /api/v1/user", s.whoami)
}

func (s *Server) gtIssueJSON(full string, is *issue) map[string]any {
	m := s.ghIssueJSON(full, is)
	ir := s.issuesOf(full)
	labels := []map[string]any{}
	for _, name := range is.labels {
		l := s.knowLabel(ir, name)
		labels = append(labels, map[string]any{"id": l.id, "name": l.name, "color": l.color})
	}
	m["labels"], m["pull_request"] = labels, nil
	delete(m, "author_association")
	return m
}

// gtIssueList answers issues (type=issues), pull requests (type=pulls)
// or both, filtered by state, labels and assigned_by, newest first,
// without an ETag: Gitea sends none on its lists.
func (s *Server) gtIssueList(w http.ResponseWriter, r *http.Request) {
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
	if q.Get("type") != "pulls" {
		for _, is := range s.issuesOf(full).issues {
			if is.matches(q.Get("state"), q.Get("labels"), q.Get("assigned_by")) {
				items = append(items, item{is.created.UnixNano(), s.gtIssueJSON(full, is)})
			}
		}
	}
	if q.Get("type") != "issues" && q.Get("labels") == "" && q.Get("assigned_by") == "" {
		for _, p := range s.repos[full].pulls {
			if st := q.Get("state"); st == "all" || (st == "closed") != (p.state == forge.Open) {
				items = append(items, item{p.updated.UnixNano(), s.ghPullAsIssue(s.repos[full], p)})
			}
		}
	}
	sort.SliceStable(items, func(i, j int) bool { return items[i].at > items[j].at })
	out := []map[string]any{}
	for _, it := range items {
		out = append(out, it.m)
	}
	writeJSON(w, http.StatusOK, s.paginate(w, r, out))
}

func (s *Server) gtIssueGet(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if is, ok := s.findIssue(w, r, fullName(r), r.PathValue("number")); ok {
		writeJSON(w, http.StatusOK, s.gtIssueJSON(fullName(r), is))
	}
}

// gtIssueComments answers an issue's comments (since filters by update
// time), or a pull request's conversation for a pull request's number.
func (s *Server) gtIssueComments(w http.ResponseWriter, r *http.Request) {
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
		if keep(c) {
			m := s.ghIssueCommentJSON(full, is, c)
			delete(m, "author_association")
			out = append(out, m)
		}
	}
	writeJSON(w, http.StatusOK, s.paginate(w, r, out))
}

func (s *Server) gtIssueCommentCreate(w http.ResponseWriter, r *http.Request) {
	var in struct {
		Body string `json:"body"`
	}
	if err := readJSON(r, &in); err != nil || in.Body == "" {
		writeJSON(w, http.StatusUnprocessableEntity, map[string]any{"message": "[Body]: Required"})
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	is, ok := s.findIssue(w, r, fullName(r), r.PathValue("number"))
	if !ok {
		return
	}
	c := s.addIssueComment(is, s.caller, in.Body, false)
	m := s.ghIssueCommentJSON(fullName(r), is, c)
	delete(m, "author_association")
	writeJSON(w, http.StatusCreated, m)
}

func gtLabelJSON(l *label) map[string]any {
	return map[string]any{"id": l.id, "name": l.name, "color": l.color, "description": ""}
}

func (s *Server) gtLabels(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.issuesVisible(w, fullName(r)) {
		return
	}
	out := []map[string]any{}
	for _, l := range s.issuesOf(fullName(r)).labels {
		out = append(out, gtLabelJSON(l))
	}
	writeJSON(w, http.StatusOK, s.paginate(w, r, out))
}

var gtColor = regexp.MustCompile(`^#?[0-9a-fA-F]{6}$`)

// gtLabelCreate creates a label; Gitea requires a name and a colour
// (422 otherwise) and refuses a name the repository has (409).
func (s *Server) gtLabelCreate(w http.ResponseWriter, r *http.Request) {
	var in struct {
		Name  string `json:"name"`
		Color string `json:"color"`
	}
	if err := readJSON(r, &in); err != nil || in.Name == "" || !gtColor.MatchString(in.Color) {
		writeJSON(w, http.StatusUnprocessableEntity, map[string]any{"message": "[Name Color]: Required"})
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.issuesVisible(w, fullName(r)) {
		return
	}
	ir := s.issuesOf(fullName(r))
	for _, l := range ir.labels {
		if l.name == in.Name {
			writeJSON(w, http.StatusConflict, map[string]any{"message": "label already exists"})
			return
		}
	}
	l := s.knowLabel(ir, in.Name)
	l.color = in.Color
	writeJSON(w, http.StatusCreated, gtLabelJSON(l))
}

// gtIssueLabelsAdd adds labels by id, as every Gitea version takes them;
// an id the repository lacks is refused with 422.
func (s *Server) gtIssueLabelsAdd(w http.ResponseWriter, r *http.Request) {
	var in struct {
		Labels []json.RawMessage `json:"labels"`
	}
	if err := readJSON(r, &in); err != nil {
		writeJSON(w, http.StatusUnprocessableEntity, map[string]any{"message": "invalid JSON"})
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	is, ok := s.findIssue(w, r, fullName(r), r.PathValue("number"))
	if !ok {
		return
	}
	ir := s.issuesOf(fullName(r))
	var add []string
	for _, raw := range in.Labels {
		var id int64
		if json.Unmarshal(raw, &id) != nil {
			writeJSON(w, http.StatusUnprocessableEntity, map[string]any{"message": "labels must be label ids"})
			return
		}
		i := slices.IndexFunc(ir.labels, func(l *label) bool { return l.id == id })
		if i < 0 {
			writeJSON(w, http.StatusUnprocessableEntity, map[string]any{"message": "label does not exist [id: " + itoa64(id) + "]"})
			return
		}
		add = append(add, ir.labels[i].name)
	}
	for _, name := range add {
		if !slices.Contains(is.labels, name) {
			is.labels = append(is.labels, name)
		}
	}
	is.updated = s.tick()
	writeJSON(w, http.StatusOK, s.gtIssueJSON(fullName(r), is)["labels"])
}

// gtIssueLabelRemove removes a label by id: 204, or 404 for an id the
// repository lacks.
func (s *Server) gtIssueLabelRemove(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	is, ok := s.findIssue(w, r, fullName(r), r.PathValue("number"))
	if !ok {
		return
	}
	id, _ := strconv.ParseInt(r.PathValue("id"), 10, 64)
	ir := s.issuesOf(fullName(r))
	i := slices.IndexFunc(ir.labels, func(l *label) bool { return l.id == id })
	if i < 0 {
		writeJSON(w, http.StatusNotFound, map[string]any{"message": s.notFound()})
		return
	}
	if j := slices.Index(is.labels, ir.labels[i].name); j >= 0 {
		is.labels = slices.Delete(is.labels, j, j+1)
		is.updated = s.tick()
	}
	w.WriteHeader(http.StatusNoContent)
}
