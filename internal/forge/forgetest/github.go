package forgetest

import (
	"net/http"
	"strings"

	"github.com/bonsai-run/bonsai/internal/forge"
)

// github serves GitHub Enterprise's REST routes under /api/v3.
func (s *Server) github(mux *http.ServeMux) {
	const base = "/api/v3/repos/{owner}/{repo}"
	mux.HandleFunc("GET "+base, s.ghRepo)
	mux.HandleFunc("GET "+base+"/pulls", s.ghList)
	mux.HandleFunc("POST "+base+"/pulls", s.ghCreate)
	mux.HandleFunc("GET "+base+"/pulls/{number}", s.ghGet)
	mux.HandleFunc("PATCH "+base+"/pulls/{number}", s.ghUpdate)
	mux.HandleFunc("GET "+base+"/pulls/{number}/reviews", s.ghReviews)
	mux.HandleFunc("GET "+base+"/pulls/{number}/comments", s.ghComments)
	mux.HandleFunc("GET "+base+"/issues/{number}/comments", s.ghIssueComments) // a pull request's conversation, or an issue's comments
	mux.HandleFunc("PUT "+base+"/pulls/{number}/merge", s.ghMerge)
	mux.HandleFunc("GET "+base+"/commits/{ref}/check-runs", s.ghCheckRuns)
	mux.HandleFunc("GET "+base+"/commits/{ref}/status", s.ghStatus)
	s.githubIssues(mux)
}

func fullName(r *http.Request) string { return r.PathValue("owner") + "/" + r.PathValue("repo") }

func user(login string) map[string]any { return map[string]any{"login": login, "type": "User"} }

func (s *Server) ghPull(rp *repo, p *pull) map[string]any {
	m := map[string]any{
		"url":      s.API() + "/repos/" + rp.owner + "/" + rp.name + "/pulls/" + itoa(p.number),
		"html_url": s.URL + "/" + rp.owner + "/" + rp.name + "/pull/" + itoa(p.number),
		"number":   p.number, "state": "open", "title": p.title, "body": p.body,
		"user":             user("bonsai"),
		"head":             map[string]any{"ref": p.head, "sha": p.headSHA, "label": rp.owner + ":" + p.head},
		"base":             map[string]any{"ref": p.base, "label": rp.owner + ":" + p.base},
		"merged":           p.state == forge.Merged,
		"merged_at":        nil,
		"merge_commit_sha": p.mergeCommit,
		"updated_at":       stamp(p.updated),
	}
	if p.state != forge.Open {
		m["state"] = "closed"
	}
	if p.state == forge.Merged {
		m["merged_at"] = stamp(p.updated)
		m["merged_by"] = user(p.mergedBy)
	}
	return m
}

func (s *Server) ghList(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	rp, _, ok := s.find(w, fullName(r), "")
	if !ok {
		return
	}
	state, head := r.URL.Query().Get("state"), r.URL.Query().Get("head")
	out := []map[string]any{}
	for _, p := range rp.pulls {
		if (state == "" || state == "open") && p.state != forge.Open || state == "closed" && p.state == forge.Open {
			continue
		}
		if head != "" && head != rp.owner+":"+p.head {
			continue
		}
		out = append(out, s.ghPull(rp, p))
	}
	writeJSON(w, http.StatusOK, out)
}

func (s *Server) ghCreate(w http.ResponseWriter, r *http.Request) {
	var in struct{ Title, Body, Head, Base string }
	if err := readJSON(r, &in); err != nil {
		writeJSON(w, http.StatusBadRequest, map[string]any{"message": "Problems parsing JSON"})
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	rp, _, ok := s.find(w, fullName(r), "")
	if !ok {
		return
	}
	head := in.Head
	if i := strings.Index(head, ":"); i >= 0 {
		head = head[i+1:]
	}
	p, status, msg := s.open(rp, in.Title, in.Body, head, in.Base)
	if p == nil {
		writeJSON(w, status, map[string]any{"message": "Validation Failed", "errors": []map[string]any{{"resource": "PullRequest", "code": "custom", "message": msg}}})
		return
	}
	writeJSON(w, http.StatusCreated, s.ghPull(rp, p))
}

func (s *Server) ghGet(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	rp, p, ok := s.find(w, fullName(r), r.PathValue("number"))
	if ok {
		s.writeCached(w, r, s.ghPull(rp, p))
	}
}

// ghUpdate edits a pull request's title, body or state.
func (s *Server) ghUpdate(w http.ResponseWriter, r *http.Request) {
	s.editPull(w, r, http.StatusBadRequest, "Problems parsing JSON", http.StatusOK, s.ghPull)
}

var ghReviewStates = map[forge.ReviewKind]string{forge.Approved: "APPROVED", forge.ChangesRequested: "CHANGES_REQUESTED", forge.Commented: "COMMENTED"}

func (s *Server) ghReviews(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	rp, p, ok := s.find(w, fullName(r), r.PathValue("number"))
	if !ok {
		return
	}
	out := []map[string]any{}
	for _, rv := range p.reviews {
		out = append(out, map[string]any{"id": rv.id, "user": user(rv.user), "body": rv.body, "state": ghReviewStates[rv.state],
			"author_association": s.association(rv.user),
			"html_url":           s.URL + "/" + rp.owner + "/" + rp.name + "/pull/" + itoa(p.number) + "#pullrequestreview-" + itoa64(rv.id),
			"submitted_at":       stamp(rv.at), "commit_id": p.headSHA})
	}
	s.writeCached(w, r, s.paginate(w, r, out))
}

func (s *Server) ghComments(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	rp, p, ok := s.find(w, fullName(r), r.PathValue("number"))
	if !ok {
		return
	}
	out := []map[string]any{}
	for _, c := range p.comments {
		out = append(out, map[string]any{"id": c.id, "user": user(c.user), "body": c.body, "path": c.path, "line": c.line,
			"author_association": s.association(c.user),
			"original_line":      c.line, "side": side(c.old), "commit_id": p.headSHA,
			"html_url":   s.URL + "/" + rp.owner + "/" + rp.name + "/pull/" + itoa(p.number) + "#discussion_r" + itoa64(c.id),
			"created_at": stamp(c.at), "updated_at": stamp(c.at)})
	}
	s.writeCached(w, r, s.paginate(w, r, out))
}

func (s *Server) ghTalk(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	rp, p, ok := s.find(w, fullName(r), r.PathValue("number"))
	if !ok {
		return
	}
	out := []map[string]any{}
	for _, c := range p.talk {
		out = append(out, map[string]any{"id": c.id, "user": user(c.user), "body": c.body, "author_association": s.association(c.user),
			"html_url":   s.URL + "/" + rp.owner + "/" + rp.name + "/pull/" + itoa(p.number) + "#issuecomment-" + itoa64(c.id),
			"created_at": stamp(c.at), "updated_at": stamp(c.at)})
	}
	s.writeCached(w, r, s.paginate(w, r, out))
}

func (s *Server) ghMerge(w http.ResponseWriter, r *http.Request) {
	var in struct {
		CommitTitle   string `json:"commit_title"`
		CommitMessage string `json:"commit_message"`
		SHA           string `json:"sha"`
		MergeMethod   string `json:"merge_method"`
	}
	if err := readJSON(r, &in); err != nil {
		writeJSON(w, http.StatusBadRequest, map[string]any{"message": "Problems parsing JSON"})
		return
	}
	if in.MergeMethod == "" {
		in.MergeMethod = "merge"
	}
	if in.MergeMethod != "merge" && in.MergeMethod != "squash" && in.MergeMethod != "rebase" {
		writeJSON(w, http.StatusUnprocessableEntity, map[string]any{"message": "Invalid request.\n\n" + in.MergeMethod + " is not a member of [\"merge\", \"squash\", \"rebase\"]."})
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	rp, p, ok := s.find(w, fullName(r), r.PathValue("number"))
	if !ok {
		return
	}
	if status, msg := s.merge(rp, p, in.MergeMethod, forge.Style(in.MergeMethod), in.SHA); status != 0 {
		writeJSON(w, status, map[string]any{"message": msg, "documentation_url": "https://docs.github.com/rest/pulls/pulls#merge-a-pull-request"})
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"sha": p.mergeCommit, "merged": true, "message": "Pull Request successfully merged"})
}

func (s *Server) ghCheckRuns(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	rp, _, ok := s.find(w, fullName(r), "")
	if !ok {
		return
	}
	runs := []map[string]any{}
	for i, c := range rp.checks[r.PathValue("ref")] {
		run := map[string]any{"id": i + 1, "name": c.name, "head_sha": r.PathValue("ref"), "status": "completed", "conclusion": nil,
			"html_url": s.URL + "/" + rp.owner + "/" + rp.name + "/runs/" + itoa(i+1), "output": map[string]any{"title": c.detail, "summary": ""}}
		switch c.state {
		case forge.ChecksPending:
			run["status"] = "in_progress"
		case forge.ChecksSuccess:
			run["conclusion"] = "success"
		default:
			run["conclusion"] = "failure"
		}
		runs = append(runs, run)
	}
	s.writeCached(w, r, map[string]any{"total_count": len(runs), "check_runs": runs})
}

// ghStatus answers the combined commit status: the fake's checks are
// check runs, so it has no statuses and is "pending" with none, as on
// GitHub.
func (s *Server) ghStatus(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, _, ok := s.find(w, fullName(r), ""); !ok {
		return
	}
	s.writeCached(w, r, map[string]any{"state": "pending", "sha": r.PathValue("ref"), "total_count": 0, "statuses": []any{}})
}

// ghRepo answers the repository, with the caller's permissions.
func (s *Server) ghRepo(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if rp, _, ok := s.find(w, fullName(r), ""); ok {
		writeJSON(w, http.StatusOK, map[string]any{"name": rp.name, "full_name": rp.owner + "/" + rp.name, "private": true, "default_branch": "main",
			"permissions": map[string]any{"admin": s.admin, "push": true, "pull": true}})
	}
}

// side is GitHub's side of the diff a line comment is on.
func side(old bool) string {
	if old {
		return "LEFT"
	}
	return "RIGHT"
}
