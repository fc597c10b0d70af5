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
	mux.HandleFunc("PATCH "+base+"/pulls/{number}", s.gtUpdate)
	mux.HandleFunc("GET "+base+"/pulls/{number}/reviews", s.gtReviews)
	mux.HandleFunc("GET "+base+"/pulls/{number}/reviews/{id}/comments", s.gtReviewComments)
	mux.HandleFunc("GET "+base+"/issues/{number}/comments", s.gtIssueComments) // a pull request's conversation, or an issue's comments
	mux.HandleFunc("POST "+base+"/pulls/{number}/merge", s.gtMerge)
	mux.HandleFunc("GET "+base+"/commits/{ref}/status", s.gtStatus)
	mux.HandleFunc("GET "+base+"/collaborators/{user}/permission", s.gtPermission)
	mux.HandleFunc("GET "+base+"/assignees", s.gtAssignees)
	mux.HandleFunc("GET "+base, s.gtRepo)
	mux.HandleFunc("GET "+base+"/issues/comments", s.gtRepoComments)
	s.giteaIssues(mux)
}

// gtRepoJSON is a repository as Gitea embeds it in a pull request's base
// and head, with what changes when anything happens in the repository.
func (s *Server) gtRepoJSON(rp *repo) map[string]any {
	return map[string]any{"id": 1, "name": rp.name, "full_name": rp.owner + "/" + rp.name, "owner": user(rp.owner),
		"open_issues_count": s.openIssues[rp.owner+"/"+rp.name], "open_pr_counter": len(rp.pulls),
		"permissions": map[string]any{"admin": s.admin, "push": true, "pull": true}}
}

// RepoActivity opens an issue in owner/name: the open_issues_count of the
// repository embedded in each of its pull requests changes, as it does
// on the forges, though no pull request did.
func (s *Server) RepoActivity(owner, name string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.openIssues[owner+"/"+name]++
	s.tick()
}

// gtUpdate edits a pull request's title, body or state; Gitea answers
// 201 Created.
func (s *Server) gtUpdate(w http.ResponseWriter, r *http.Request) {
	s.editPull(w, r, http.StatusUnprocessableEntity, "invalid JSON", http.StatusCreated, s.gtPull)
}

// gtRepo answers the repository, with the caller's permissions.
func (s *Server) gtRepo(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if rp, _, ok := s.find(w, fullName(r), ""); ok {
		writeJSON(w, http.StatusOK, s.gtRepoJSON(rp))
	}
}

// gtRepoComments answers the repository's issue comments (none here):
// the route the doctor's probe reads for the issue scope.
func (s *Server) gtRepoComments(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, _, ok := s.find(w, fullName(r), ""); ok {
		writeJSON(w, http.StatusOK, []any{})
	}
}

// gtAssignees answers the users who may be assigned: those with write
// access, the owner among them.
func (s *Server) gtAssignees(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	rp, _, ok := s.find(w, fullName(r), "")
	if !ok {
		return
	}
	out := []map[string]any{user(rp.owner)}
	for _, n := range append([]string{s.caller}, s.knownUsers()...) {
		if !s.outsiders[n] && n != rp.owner {
			out = append(out, user(n))
		}
	}
	writeJSON(w, http.StatusOK, out)
}

func (s *Server) gtPull(rp *repo, p *pull) map[string]any {
	m := s.ghPull(rp, p)
	m["base"].(map[string]any)["repo"] = s.gtRepoJSON(rp)
	m["head"].(map[string]any)["repo"] = s.gtRepoJSON(rp)
	m["comments"] = len(p.talk)
	m["html_url"] = s.URL + "/" + rp.owner + "/" + rp.name + "/pulls/" + itoa(p.number)
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
			"commit_id": p.headSHA, "stale": false, "official": rv.state != forge.Commented && !s.outsiders[rv.user], "dismissed": false,
			"comments_count": len(rv.comments), "submitted_at": stamp(rv.at),
			// Gitea links a review to the comment that holds it, whose id is
			// not the review's.
			"html_url": s.URL + "/" + rp.owner + "/" + rp.name + "/pulls/" + itoa(p.number) + "#issuecomment-" + itoa64(rv.commentID)})
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
			// A comment on the old side of the diff has position 0 and its
			// line in original_position.
			pos, orig := c.line, 0
			if c.old {
				pos, orig = 0, c.line
			}
			out = append(out, map[string]any{"id": c.id, "user": user(c.user), "body": c.body, "path": c.path,
				"position": pos, "original_position": orig, "commit_id": p.headSHA, "pull_request_review_id": rv.id,
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
// every user but the outsiders, who may only read. As Gitea, it answers
// 403 to a token that is not an admin's asking about another user.
func (s *Server) gtPermission(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, _, ok := s.find(w, fullName(r), ""); !ok {
		return
	}
	if !s.admin && r.PathValue("user") != s.caller {
		writeJSON(w, http.StatusForbidden, map[string]any{"message": "Only admins can query all permissions, repo admins can query all repo permissions, collaborators can query only their own"})
		return
	}
	perm := "write"
	if s.outsiders[r.PathValue("user")] {
		perm = "read"
	}
	writeJSON(w, http.StatusOK, map[string]any{"permission": perm, "role_name": perm, "user": user(r.PathValue("user"))})
}
