package forgetest

import (
	"net/http"
	"strconv"

	"github.com/bonsai-run/bonsai/internal/forge"
)

// gitea serves the REST routes of Gitea and Forgejo under /api/v1.
func (s *Server) gitea(mux *http.ServeMux) {
	const base = "/api/v1/repos/{owner}/{repo}"
	mux.HandleFunc("GET "+base+"/pulls", s.gtList)
	mux.HandleFunc("POST "+base+"/pulls", s.gtCreate)
	mux.HandleFunc("GET "+base+"/pulls/{number}", s.gtGet)
	mux.HandleFunc("PATCH "+base+"/pulls/{number}", s.ghUpdate) // same fields: title, body, state
	mux.HandleFunc("GET "+base+"/pulls/{number}/reviews", s.gtReviews)
	mux.HandleFunc("GET "+base+"/pulls/{number}/reviews/{id}/comments", s.gtReviewComments)
	mux.HandleFunc("GET "+base+"/issues/{number}/comments", s.ghTalk)
	mux.HandleFunc("POST "+base+"/pulls/{number}/merge", s.gtMerge)
	mux.HandleFunc("GET "+base+"/commits/{ref}/status", s.gtStatus)
	mux.HandleFunc("GET "+base+"/collaborators/{user}/permission", s.gtPermission)
}

func (s *Server) gtPull(rp *repo, p *pull) map[string]any {
	m := s.ghPull(rp, p)
	m["mergeable"] = p.state == forge.Open && p.block == nil
	m["merge_commit_sha"] = nil
	if p.state == forge.Merged {
		m["merge_commit_sha"] = p.mergeCommit
	}
	return m
}

func (s *Server) gtList(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	rp, _, ok := s.find(w, fullName(r), "")
	if !ok {
		return
	}
	state := r.URL.Query().Get("state")
	out := []map[string]any{}
	for _, p := range rp.pulls {
		if state == "open" && p.state != forge.Open || state == "closed" && p.state == forge.Open {
			continue
		}
		out = append(out, s.gtPull(rp, p))
	}
	writeJSON(w, http.StatusOK, out)
}

func (s *Server) gtCreate(w http.ResponseWriter, r *http.Request) {
	var in struct{ Title, Body, Head, Base string }
	if err := readJSON(r, &in); err != nil {
		writeJSON(w, http.StatusUnprocessableEntity, map[string]any{"message": "invalid JSON"})
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	rp, _, ok := s.find(w, fullName(r), "")
	if !ok {
		return
	}
	p, status, msg := s.open(rp, in.Title, in.Body, in.Head, in.Base)
	if p == nil {
		if status == http.StatusUnprocessableEntity && in.Title != "" {
			status = http.StatusConflict // Gitea: "pull request already exists for these targets"
		}
		writeJSON(w, status, map[string]any{"message": msg})
		return
	}
	writeJSON(w, http.StatusCreated, s.gtPull(rp, p))
}

func (s *Server) gtGet(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	rp, p, ok := s.find(w, fullName(r), r.PathValue("number"))
	if ok {
		s.writeCached(w, r, s.gtPull(rp, p))
	}
}

var gtReviewStates = map[forge.ReviewKind]string{forge.Approved: "APPROVED", forge.ChangesRequested: "REQUEST_CHANGES", forge.Commented: "COMMENT"}

func (s *Server) gtReviews(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	rp, p, ok := s.find(w, fullName(r), r.PathValue("number"))
	if !ok {
		return
	}
	out := []map[string]any{}
	for _, rv := range p.reviews {
		out = append(out, map[string]any{"id": rv.id, "user": user(rv.user), "body": rv.body, "state": gtReviewStates[rv.state],
			"commit_id": p.headSHA, "stale": false, "official": rv.state != forge.Commented, "dismissed": false,
			"comments_count": len(rv.comments), "submitted_at": stamp(rv.at),
			"html_url": s.URL + "/" + rp.owner + "/" + rp.name + "/pulls/" + itoa(p.number) + "#issuecomment-" + itoa64(rv.id)})
	}
	s.writeCached(w, r, s.paginate(w, r, out))
}

func (s *Server) gtReviewComments(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	rp, p, ok := s.find(w, fullName(r), r.PathValue("number"))
	if !ok {
		return
	}
	id, _ := strconv.ParseInt(r.PathValue("id"), 10, 64)
	for _, rv := range p.reviews {
		if rv.id != id {
			continue
		}
		out := []map[string]any{}
		for _, c := range rv.comments {
			out = append(out, map[string]any{"id": c.id, "user": user(c.user), "body": c.body, "path": c.path,
				"position": c.line, "original_position": c.line, "commit_id": p.headSHA, "pull_request_review_id": rv.id,
				"html_url":   s.URL + "/" + rp.owner + "/" + rp.name + "/pulls/" + itoa(p.number) + "/files#issuecomment-" + itoa64(c.id),
				"created_at": stamp(c.at), "updated_at": stamp(c.at)})
		}
		s.writeCached(w, r, out)
		return
	}
	writeJSON(w, http.StatusNotFound, map[string]any{"message": "review does not exist"})
}

func (s *Server) gtMerge(w http.ResponseWriter, r *http.Request) {
	var in struct {
		Do                string `json:"Do"`
		MergeTitleField   string `json:"MergeTitleField"`
		MergeMessageField string `json:"MergeMessageField"`
		HeadCommitID      string `json:"head_commit_id"`
	}
	if err := readJSON(r, &in); err != nil {
		writeJSON(w, http.StatusUnprocessableEntity, map[string]any{"message": "invalid JSON"})
		return
	}
	style := map[string]forge.Style{"merge": forge.Merge, "squash": forge.Squash, "rebase": forge.Rebase, "rebase-merge": forge.Rebase}[in.Do]
	if style == "" {
		writeJSON(w, http.StatusUnprocessableEntity, map[string]any{"message": "[Do]: In not allowed"})
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	rp, p, ok := s.find(w, fullName(r), r.PathValue("number"))
	if !ok {
		return
	}
	if status, msg := s.merge(rp, p, in.Do, style, in.HeadCommitID); status != 0 {
		if status == http.StatusMethodNotAllowed && p.state == forge.Open && p.block == nil {
			msg = "Please try again later: " + msg
		}
		writeJSON(w, status, map[string]any{"message": msg})
		return
	}
	w.WriteHeader(http.StatusOK)
}

func (s *Server) gtStatus(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	rp, _, ok := s.find(w, fullName(r), "")
	if !ok {
		return
	}
	var sts []map[string]any
	state := "success"
	for i, c := range rp.checks[r.PathValue("ref")] {
		st := map[forge.Checks]string{forge.ChecksPending: "pending", forge.ChecksSuccess: "success", forge.ChecksFailure: "failure"}[c.state]
		switch {
		case st == "failure":
			state = "failure"
		case st == "pending" && state == "success":
			state = "pending"
		}
		sts = append(sts, map[string]any{"id": i + 1, "status": st, "context": c.name, "description": c.detail,
			"target_url": s.URL + "/" + rp.owner + "/" + rp.name + "/actions/runs/" + itoa(i+1)})
	}
	if len(sts) == 0 {
		state, sts = "", []map[string]any{}
	}
	s.writeCached(w, r, map[string]any{"state": state, "sha": r.PathValue("ref"), "total_count": len(sts), "statuses": sts})
}

// gtPermission answers a user's permission on the repository: write for
// every user but the outsiders, who may only read.
func (s *Server) gtPermission(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, _, ok := s.find(w, fullName(r), ""); !ok {
		return
	}
	perm := "write"
	if s.outsiders[r.PathValue("user")] {
		perm = "read"
	}
	writeJSON(w, http.StatusOK, map[string]any{"permission": perm, "role_name": perm, "user": user(r.PathValue("user"))})
}
