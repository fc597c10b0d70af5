package forgetest

import (
	"crypto/sha1"
	"encoding/hex"
	"fmt"
	"net/http"
	"slices"

	"github.com/bonsai-run/bonsai/internal/forge"
)

// PR is what the server holds of a pull request.
type PR struct {
	Number      int
	Title, Body string
	Head, Base  string
	HeadSHA     string
	State       forge.State
	MergeCommit string
	// MergeMethod is how it was merged: merge, squash or rebase (GitLab:
	// merge or squash; Gitea: its "Do").
	MergeMethod string
	MergedBy    string
}

func (p *pull) snapshot() PR {
	return PR{Number: p.number, Title: p.title, Body: p.body, Head: p.head, Base: p.base, HeadSHA: p.headSHA,
		State: p.state, MergeCommit: p.mergeCommit, MergeMethod: p.mergeMethod, MergedBy: p.mergedBy}
}

// Pulls returns the pull requests of owner/name, oldest first.
func (s *Server) Pulls(owner, name string) []PR {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []PR
	if rp := s.repos[owner+"/"+name]; rp != nil {
		for _, p := range rp.pulls {
			out = append(out, p.snapshot())
		}
	}
	return out
}

// PR returns pull request number of owner/name.
func (s *Server) PR(owner, name string, number int) PR {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.pullOf(owner, name, number).snapshot()
}

// Review submits a review by user: approved, changes requested, or a
// comment with body.
func (s *Server) Review(owner, name string, number int, user string, kind forge.ReviewKind, body string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	p := s.pullOf(owner, name, number)
	at := s.tick()
	p.updated = at
	if s.Kind == forge.GitLab {
		// GitLab: the review's summary is a note, its verdict the
		// reviewer's state.
		if body != "" {
			p.talk = append(p.talk, &comment{id: s.id(), user: user, body: body, at: at})
		}
		switch kind {
		case forge.Approved:
			p.reviewers[user] = "approved"
		case forge.ChangesRequested:
			p.reviewers[user] = "requested_changes"
		default:
			p.reviewers[user] = "reviewed"
		}
		return
	}
	p.reviews = append(p.reviews, &review{id: s.id(), commentID: s.id(), user: user, state: kind, body: body, at: at})
}

// Comment adds an inline review comment by user on path:line.
func (s *Server) Comment(owner, name string, number int, user, path string, line int, body string) {
	s.comment(owner, name, number, user, path, line, false, body)
}

// CommentOld adds an inline review comment by user on line of path as
// it was before the change (the old side of the diff, a removed line).
func (s *Server) CommentOld(owner, name string, number int, user, path string, line int, body string) {
	s.comment(owner, name, number, user, path, line, true, body)
}

func (s *Server) comment(owner, name string, number int, user, path string, line int, old bool, body string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	p := s.pullOf(owner, name, number)
	at := s.tick()
	p.updated = at
	c := &comment{id: s.id(), user: user, body: body, path: path, line: line, old: old, at: at}
	switch s.Kind {
	case forge.GitHub:
		p.comments = append(p.comments, c)
	case forge.GitLab:
		p.talk = append(p.talk, c)
	default:
		// Gitea: an inline comment belongs to a review ("COMMENT").
		p.reviews = append(p.reviews, &review{id: s.id(), commentID: s.id(), user: user, state: forge.Commented, at: at, comments: []*comment{c}})
	}
}

// Talk adds a comment to the pull request's conversation.
func (s *Server) Talk(owner, name string, number int, user, body string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	p := s.pullOf(owner, name, number)
	at := s.tick()
	p.updated = at
	p.talk = append(p.talk, &comment{id: s.id(), user: user, body: body, at: at})
}

// SetCheck sets the result of check checkName on commit sha: a check run on
// GitHub, a pipeline job's commit status on GitLab (whose merge request
// shows the head pipeline), a commit status on Gitea.
func (s *Server) SetCheck(owner, name, sha, checkName string, state forge.Checks, detail string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	rp := s.repos[owner+"/"+name]
	cs := rp.checks[sha]
	i := slices.IndexFunc(cs, func(c check) bool { return c.name == checkName })
	if i < 0 {
		cs = append(cs, check{name: checkName})
		i = len(cs) - 1
	}
	cs[i].state, cs[i].detail = state, detail
	rp.checks[sha] = cs
	s.tick()
}

// Push moves a pull request's head to a new commit, as a push of its
// branch does; "" makes one up.
func (s *Server) Push(owner, name string, number int, sha string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	p := s.pullOf(owner, name, number)
	if sha == "" {
		sha = fakeSHA(fmt.Sprint(p.head, s.id()))
	}
	p.headSHA, p.updated = sha, s.tick()
	return sha
}

// MergeOutside merges a pull request as user on the forge.
func (s *Server) MergeOutside(owner, name string, number int, user string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	p := s.pullOf(owner, name, number)
	p.state, p.mergedBy, p.mergeMethod = forge.Merged, user, "merge"
	p.mergeCommit = fakeSHA(fmt.Sprint("merge", p.number, s.id()))
	p.updated = s.tick()
}

// Close closes a pull request without merging it.
func (s *Server) Close(owner, name string, number int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	p := s.pullOf(owner, name, number)
	p.state, p.updated = forge.Closed, s.tick()
}

// BlockMerge makes merging pull request number answer status with the
// forge's message (a protected branch, required checks, a conflict),
// until UnblockMerge.
func (s *Server) BlockMerge(owner, name string, number, status int, message string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.pullOf(owner, name, number).block = &fault{status: status, message: message}
}

// UnblockMerge lets pull request number merge again.
func (s *Server) UnblockMerge(owner, name string, number int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.pullOf(owner, name, number).block = nil
}

// open adds a pull request, checking what the forges check: the head
// branch exists (when the server serves the repository's git) and no
// other open pull request has it. It returns the answer's status and
// message on a refusal.
func (s *Server) open(rp *repo, title, body, head, base string) (*pull, int, string) {
	if head == "" || base == "" || title == "" {
		return nil, http.StatusUnprocessableEntity, "Validation Failed: title, head and base are required"
	}
	for _, p := range rp.pulls {
		if p.head == head && p.state == forge.Open {
			return nil, http.StatusUnprocessableEntity, fmt.Sprintf("A pull request already exists for %s:%s.", rp.owner, head)
		}
	}
	sha, ok := s.branchHead(rp, head)
	if !ok {
		return nil, http.StatusUnprocessableEntity, "Validation Failed: head: invalid (no branch " + head + ")"
	}
	p := &pull{number: len(rp.pulls) + 1, title: title, body: body, head: head, base: base, headSHA: sha,
		state: forge.Open, updated: s.tick(), reviewers: map[string]string{}}
	rp.pulls = append(rp.pulls, p)
	return p, 0, ""
}

// merge merges p with method when nothing blocks it; it returns the
// refusal's status and message otherwise.
func (s *Server) merge(rp *repo, p *pull, method string, style forge.Style, sha string) (int, string) {
	switch {
	case p.state != forge.Open:
		return http.StatusMethodNotAllowed, "Pull Request is not mergeable"
	case p.block != nil:
		return p.block.status, p.block.message
	case sha != "" && sha != p.headSHA:
		return http.StatusConflict, "Head branch was modified. Review and try the merge again."
	case rp.mergeStyles != nil && !slices.Contains(rp.mergeStyles, style):
		return http.StatusMethodNotAllowed, fmt.Sprintf("%s merges are not allowed on this repository.", style)
	}
	for _, c := range rp.checks[p.headSHA] {
		if c.state == forge.ChecksFailure {
			return http.StatusMethodNotAllowed, "Required status check \"" + c.name + "\" is failing."
		}
	}
	p.state, p.mergeMethod, p.mergedBy = forge.Merged, method, "bonsai"
	p.mergeCommit = fakeSHA(fmt.Sprint("merged", p.number, p.headSHA))
	p.updated = s.tick()
	s.closeNamed(rp.owner+"/"+rp.name, p.body)
	return 0, ""
}

// fakeSHA makes up a commit id.
func fakeSHA(seed string) string {
	sum := sha1.Sum([]byte(seed))
	return hex.EncodeToString(sum[:])
}

// Outsider makes user an author without write access (GitHub's
// author_association NONE) on the reviews and comments they write.
func (s *Server) Outsider(user string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.outsiders == nil {
		s.outsiders = map[string]bool{}
	}
	s.outsiders[user] = true
}

// association is GitHub's author_association of user.
func (s *Server) association(user string) string {
	if s.outsiders[user] {
		return "NONE"
	}
	return "MEMBER"
}

// knownUsers lists every user who reviewed or commented. The caller holds
// s.mu.
func (s *Server) knownUsers() []string {
	seen := map[string]bool{}
	var out []string
	add := func(n string) {
		if !seen[n] {
			seen[n] = true
			out = append(out, n)
		}
	}
	for _, rp := range s.repos {
		for _, p := range rp.pulls {
			for _, rv := range p.reviews {
				add(rv.user)
			}
			for _, c := range append(append([]*comment(nil), p.comments...), p.talk...) {
				add(c.user)
			}
			for n := range p.reviewers {
				add(n)
			}
		}
	}
	for _, n := range s.issueUsers() {
		add(n)
	}
	return out
}
