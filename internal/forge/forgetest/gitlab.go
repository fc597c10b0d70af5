package forgetest

import (
	"hash/fnv"
	"net/http"
	"slices"
	"sort"
	"strconv"

	"github.com/bonsai-run/bonsai/internal/forge"
)

// gitlab serves GitLab's REST routes under /api/v4; the project id is the
// URL-encoded full path.
func (s *Server) gitlab(mux *http.ServeMux) {
	const base = "/api/v4/projects/{id}"
	mux.HandleFunc("GET /api/v4/personal_access_tokens/self", s.glTokenSelf)
	mux.HandleFunc("GET "+base+"/merge_requests", s.glList)
	mux.HandleFunc("POST "+base+"/merge_requests", s.glCreate)
	mux.HandleFunc("GET "+base+"/merge_requests/{iid}", s.glGet)
	mux.HandleFunc("PUT "+base+"/merge_requests/{iid}", s.glUpdate)
	mux.HandleFunc("GET "+base+"/merge_requests/{iid}/notes", s.glNotes)
	mux.HandleFunc("GET "+base+"/merge_requests/{iid}/reviewers", s.glReviewers)
	mux.HandleFunc("GET "+base+"/merge_requests/{iid}/approvals", s.glApprovals)
	mux.HandleFunc("PUT "+base+"/merge_requests/{iid}/merge", s.glMerge)
	mux.HandleFunc("GET "+base+"/repository/commits/{sha}/statuses", s.glStatuses)
	mux.HandleFunc("GET "+base+"/members/all/{user_id}", s.glMember)
	s.gitlabIssues(mux)
}

func glUser(name string) map[string]any {
	return map[string]any{"id": userID(name), "username": name, "name": name, "state": "active"}
}

// userID is a user's made-up numeric id.
func userID(name string) int64 {
	h := fnv.New32a()
	h.Write([]byte(name))
	return int64(h.Sum32()%1_000_000) + 1
}

// glPipeline is the head pipeline of a commit: its jobs' statuses folded.
func glPipeline(cs []check) string {
	if len(cs) == 0 {
		return ""
	}
	st := "success"
	for _, c := range cs {
		switch c.state {
		case forge.ChecksFailure:
			return "failed"
		case forge.ChecksPending:
			st = "running"
		}
	}
	return st
}

func (s *Server) glMR(rp *repo, p *pull, single bool) map[string]any {
	state := map[forge.State]string{forge.Open: "opened", forge.Merged: "merged", forge.Closed: "closed"}[p.state]
	m := map[string]any{
		"id": 1000 + p.number, "iid": p.number, "title": p.title, "description": p.body, "state": state,
		"web_url":       s.URL + "/" + rp.owner + "/" + rp.name + "/-/merge_requests/" + itoa(p.number),
		"source_branch": p.head, "target_branch": p.base, "sha": p.headSHA,
		"merge_commit_sha": nil, "squash_commit_sha": nil, "author": glUser("bonsai"),
		"draft": false, "merge_status": "can_be_merged", "detailed_merge_status": "mergeable",
		"updated_at": stamp(p.updated),
	}
	if p.state == forge.Merged {
		if p.mergeMethod == "squash" {
			m["squash_commit_sha"] = p.mergeCommit
		} else {
			m["merge_commit_sha"] = p.mergeCommit
		}
		m["merged_by"] = glUser(p.mergedBy)
	}
	if single {
		// Only a single merge request carries its head pipeline.
		m["head_pipeline"] = nil
		if st := glPipeline(rp.checks[p.headSHA]); st != "" {
			m["head_pipeline"] = map[string]any{"id": 1, "sha": p.headSHA, "status": st}
		}
	}
	return m
}

func (s *Server) glList(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	rp, _, ok := s.find(w, r.PathValue("id"), "")
	if !ok {
		return
	}
	q := r.URL.Query()
	out := []map[string]any{}
	for _, p := range rp.pulls {
		m := s.glMR(rp, p, false)
		if st := q.Get("state"); st != "" && st != "all" && m["state"] != st {
			continue
		}
		if b := q.Get("source_branch"); b != "" && b != p.head {
			continue
		}
		out = append(out, m)
	}
	writeJSON(w, http.StatusOK, out)
}

func (s *Server) glCreate(w http.ResponseWriter, r *http.Request) {
	var in struct {
		SourceBranch string `json:"source_branch"`
		TargetBranch string `json:"target_branch"`
		Title        string `json:"title"`
		Description  string `json:"description"`
	}
	if err := readJSON(r, &in); err != nil {
		writeJSON(w, http.StatusBadRequest, map[string]any{"error": "body is invalid"})
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	rp, _, ok := s.find(w, r.PathValue("id"), "")
	if !ok {
		return
	}
	p, status, msg := s.open(rp, in.Title, in.Description, in.SourceBranch, in.TargetBranch)
	if p == nil {
		if status == http.StatusUnprocessableEntity {
			status = http.StatusConflict // GitLab: "Another open merge request already exists for this source branch"
			if in.Title == "" || in.SourceBranch == "" {
				status = http.StatusBadRequest
			}
		}
		writeJSON(w, status, map[string]any{"message": []string{msg}})
		return
	}
	writeJSON(w, http.StatusCreated, s.glMR(rp, p, false))
}

func (s *Server) glGet(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	rp, p, ok := s.find(w, r.PathValue("id"), r.PathValue("iid"))
	if ok {
		s.writeCached(w, r, s.glMR(rp, p, true))
	}
}

func (s *Server) glUpdate(w http.ResponseWriter, r *http.Request) {
	var in struct {
		Title       *string `json:"title"`
		Description *string `json:"description"`
		StateEvent  string  `json:"state_event"`
	}
	if err := readJSON(r, &in); err != nil {
		writeJSON(w, http.StatusBadRequest, map[string]any{"error": "body is invalid"})
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	rp, p, ok := s.find(w, r.PathValue("id"), r.PathValue("iid"))
	if !ok {
		return
	}
	if in.Title != nil {
		p.title = *in.Title
	}
	if in.Description != nil {
		p.body = *in.Description
	}
	if in.StateEvent == "close" && p.state == forge.Open {
		p.state = forge.Closed
	}
	p.updated = s.tick()
	writeJSON(w, http.StatusOK, s.glMR(rp, p, true))
}

func (s *Server) glNotes(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	_, p, ok := s.find(w, r.PathValue("id"), r.PathValue("iid"))
	if !ok {
		return
	}
	notes := slices.Clone(p.talk)
	sort.SliceStable(notes, func(i, j int) bool { return notes[i].at.Before(notes[j].at) })
	if r.URL.Query().Get("sort") != "asc" {
		slices.Reverse(notes) // GitLab's default is newest first
	}
	out := []map[string]any{}
	for _, c := range notes {
		n := map[string]any{"id": c.id, "body": c.body, "author": glUser(c.user), "system": c.system, "type": nil,
			"noteable_type": "MergeRequest", "noteable_iid": p.number, "created_at": stamp(c.at), "updated_at": stamp(c.at)}
		if c.path != "" {
			n["type"] = "DiffNote"
			n["position"] = map[string]any{"position_type": "text", "new_path": c.path, "new_line": c.line, "old_path": c.path, "old_line": nil, "head_sha": p.headSHA}
			if c.old { // a line the change removed has only its old number
				n["position"] = map[string]any{"position_type": "text", "new_path": c.path, "new_line": nil, "old_path": c.path, "old_line": c.line, "head_sha": p.headSHA}
			}
		}
		out = append(out, n)
	}
	s.writeCached(w, r, s.paginate(w, r, out))
}

func (s *Server) glReviewers(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	_, p, ok := s.find(w, r.PathValue("id"), r.PathValue("iid"))
	if !ok {
		return
	}
	var names []string
	for n := range p.reviewers {
		names = append(names, n)
	}
	sort.Strings(names)
	out := []map[string]any{}
	for _, n := range names {
		out = append(out, map[string]any{"user": glUser(n), "state": p.reviewers[n], "created_at": stamp(p.updated)})
	}
	s.writeCached(w, r, out)
}

func (s *Server) glApprovals(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	_, p, ok := s.find(w, r.PathValue("id"), r.PathValue("iid"))
	if !ok {
		return
	}
	by := []map[string]any{}
	for n, st := range p.reviewers {
		if st == "approved" {
			by = append(by, map[string]any{"user": glUser(n)})
		}
	}
	s.writeCached(w, r, map[string]any{"iid": p.number, "approved": len(by) > 0, "approved_by": by})
}

func (s *Server) glMerge(w http.ResponseWriter, r *http.Request) {
	var in struct {
		Squash bool   `json:"squash"`
		SHA    string `json:"sha"`
	}
	if err := readJSON(r, &in); err != nil {
		writeJSON(w, http.StatusBadRequest, map[string]any{"error": "body is invalid"})
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	rp, p, ok := s.find(w, r.PathValue("id"), r.PathValue("iid"))
	if !ok {
		return
	}
	method, style := "merge", forge.Merge
	if in.Squash {
		method, style = "squash", forge.Squash
	}
	saved := rp.mergeStyles
	rp.mergeStyles = nil // GitLab merges the project's way; only squash is asked
	status, msg := s.merge(rp, p, method, style, in.SHA)
	rp.mergeStyles = saved
	if status == 0 && s.asyncMerge {
		// GitLab merges in the background: the answer still says opened.
		p.state = forge.Open
		m := s.glMR(rp, p, true)
		p.state, p.updated = forge.Merged, s.tick()
		writeJSON(w, http.StatusOK, m)
		return
	}
	if status != 0 {
		switch status {
		case http.StatusConflict:
			msg = "SHA does not match HEAD of source branch: " + p.headSHA
		case http.StatusMethodNotAllowed:
			if p.state == forge.Open {
				msg = "405 Method Not Allowed"
			}
		}
		writeJSON(w, status, map[string]any{"message": msg})
		return
	}
	writeJSON(w, http.StatusOK, s.glMR(rp, p, true))
}

func (s *Server) glStatuses(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	rp, _, ok := s.find(w, r.PathValue("id"), "")
	if !ok {
		return
	}
	out := []map[string]any{}
	for i, c := range rp.checks[r.PathValue("sha")] {
		st := map[forge.Checks]string{forge.ChecksPending: "running", forge.ChecksSuccess: "success", forge.ChecksFailure: "failed"}[c.state]
		out = append(out, map[string]any{"id": i + 1, "sha": r.PathValue("sha"), "status": st, "name": c.name, "description": c.detail,
			"target_url": s.URL + "/" + rp.owner + "/" + rp.name + "/-/jobs/" + itoa(i+1)})
	}
	s.writeCached(w, r, out)
}

// glMember answers a project member (every user but the outsiders, as a
// Developer) or 404.
func (s *Server) glMember(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, _, ok := s.find(w, r.PathValue("id"), ""); !ok {
		return
	}
	id, _ := strconv.ParseInt(r.PathValue("user_id"), 10, 64)
	for _, name := range s.knownUsers() {
		if userID(name) == id && !s.outsiders[name] {
			level := 30
			if s.reporters[name] {
				level = 20 // a Reporter reads but may not push
			}
			writeJSON(w, http.StatusOK, map[string]any{"id": id, "username": name, "access_level": level, "state": "active"})
			return
		}
	}
	writeJSON(w, http.StatusNotFound, map[string]any{"message": "404 Not found"})
}

// glTokenSelf describes the accepted token.
func (s *Server) glTokenSelf(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	scopes := s.scopes
	if scopes == nil {
		scopes = DefaultScopes(string(s.Kind))
	}
	writeJSON(w, http.StatusOK, map[string]any{"id": 1, "name": "bonsai", "active": true, "revoked": false, "scopes": scopes, "user_id": userID(s.caller)})
}
