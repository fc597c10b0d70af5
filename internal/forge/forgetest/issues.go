package forgetest

import (
	"fmt"
	"net/http"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
)

// issueRepo is a repository's issues, with the labels it knows (Gitea
// works with label ids).
type issueRepo struct {
	issues []*issue
	labels []*label
	// hidden makes the issues invisible to the token: 404, as a forge
	// answers for a repository the token may not read.
	hidden bool
}

type label struct {
	id    int64
	name  string
	color string
}

// issue is one issue and its comments.
type issue struct {
	number    int
	id        int64
	title     string
	body      string
	author    string
	labels    []string
	assignees []string
	closed    bool
	deleted   bool
	// movedTo is the repository and number an issue was transferred to
	// ("owner/name#7"); movedID the new issue's id.
	movedTo  string
	movedID  int64
	created  time.Time
	updated  time.Time
	comments []*issueComment
}

type issueComment struct {
	id      int64
	user    string
	body    string
	created time.Time
	updated time.Time
	// system marks a note GitLab writes itself (a label change).
	system bool
}

// firstIssue is the number of a repository's first issue. The fake
// counts pull requests from 1; issues start here so that the two never
// share a number, as they never do on GitHub and Gitea.
const firstIssue = 101

// issuesOf returns owner/name's issues, creating the record. The caller
// holds s.mu.
func (s *Server) issuesOf(full string) *issueRepo {
	if s.issues == nil {
		s.issues = map[string]*issueRepo{}
	}
	ir := s.issues[full]
	if ir == nil {
		ir = &issueRepo{}
		s.issues[full] = ir
	}
	return ir
}

// issueByNumber finds an issue, deleted ones too. The caller holds s.mu.
func (s *Server) issueByNumber(full string, number int) *issue {
	for _, is := range s.issuesOf(full).issues {
		if is.number == number {
			return is
		}
	}
	return nil
}

// mustIssue finds an issue for the scripting methods.
func (s *Server) mustIssue(owner, name string, number int) *issue {
	is := s.issueByNumber(owner+"/"+name, number)
	if is == nil {
		panic(fmt.Sprintf("forgetest: no issue %d in %s/%s", number, owner, name))
	}
	return is
}

// OpenIssue opens an issue by author on owner/name and returns its
// number.
func (s *Server) OpenIssue(owner, name, author, title, body string, labels ...string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.repos[owner+"/"+name] == nil {
		panic(fmt.Sprintf("forgetest: no repository %s/%s", owner, name))
	}
	ir := s.issuesOf(owner + "/" + name)
	now := s.tick()
	is := &issue{number: firstIssue + len(ir.issues), id: 5000 + s.id(), title: title, body: body, author: author,
		labels: append([]string(nil), labels...), created: now, updated: now}
	for _, l := range labels {
		s.knowLabel(ir, l)
	}
	ir.issues = append(ir.issues, is)
	return is.number
}

// CommentIssue comments on an issue as user and returns the comment's id.
func (s *Server) CommentIssue(owner, name string, number int, user, body string) int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.addIssueComment(s.mustIssue(owner, name, number), user, body, false).id
}

// addIssueComment adds a comment; the issue is updated too. The caller
// holds s.mu.
func (s *Server) addIssueComment(is *issue, user, body string, system bool) *issueComment {
	now := s.tick()
	c := &issueComment{id: s.id(), user: user, body: body, created: now, updated: now, system: system}
	is.comments = append(is.comments, c)
	is.updated = now
	return c
}

// EditIssueComment changes a comment's text, as its author editing it.
func (s *Server) EditIssueComment(owner, name string, number int, id int64, body string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, c := range s.mustIssue(owner, name, number).comments {
		if c.id == id {
			c.body, c.updated = body, s.tick()
			return
		}
	}
	panic(fmt.Sprintf("forgetest: no comment %d on issue %d", id, number))
}

// LabelIssue adds labels to an issue, as a person would.
func (s *Server) LabelIssue(owner, name string, number int, labels ...string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	is := s.mustIssue(owner, name, number)
	for _, l := range labels {
		s.knowLabel(s.issuesOf(owner+"/"+name), l)
		if !slices.Contains(is.labels, l) {
			is.labels = append(is.labels, l)
		}
	}
	is.updated = s.tick()
}

// AssignIssue assigns an issue to login.
func (s *Server) AssignIssue(owner, name string, number int, login string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	is := s.mustIssue(owner, name, number)
	is.assignees = append(is.assignees, login)
	is.updated = s.tick()
	if s.Kind == "gitlab" { // GitLab says so in a system note
		s.addIssueComment(is, s.caller, "assigned to @"+login, true)
	}
}

// CloseIssue closes an issue by hand.
func (s *Server) CloseIssue(owner, name string, number int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	is := s.mustIssue(owner, name, number)
	is.closed, is.updated = true, s.tick()
}

// DeleteIssue deletes an issue: GitHub answers 410 Gone for it, GitLab
// and Gitea 404.
func (s *Server) DeleteIssue(owner, name string, number int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.mustIssue(owner, name, number).deleted = true
}

// TransferIssue moves an issue to the repository toOwner/toName and
// returns its number there: GitHub redirects the old issue's routes to
// the new one (301); GitLab closes the old one and names the new one's
// id in moved_to_id.
func (s *Server) TransferIssue(owner, name string, number int, toOwner, toName string) int {
	s.mu.Lock()
	is := s.mustIssue(owner, name, number)
	title, body, author, labels := is.title, is.body, is.author, is.labels
	s.mu.Unlock()
	n := s.OpenIssue(toOwner, toName, author, title, body, labels...)
	s.mu.Lock()
	defer s.mu.Unlock()
	moved := s.mustIssue(toOwner, toName, n)
	is.movedTo, is.movedID = toOwner+"/"+toName+"#"+itoa(n), moved.id
	is.closed, is.updated = true, s.tick()
	return n
}

// HideIssues makes owner/name's issues invisible to the token (404 on
// every issue route), as for a token not granted that repository.
func (s *Server) HideIssues(owner, name string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.issuesOf(owner + "/" + name).hidden = true
}

// Reporter makes user a GitLab Reporter of every project: a member who
// may read but not push (access level 20).
func (s *Server) Reporter(user string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.reporters == nil {
		s.reporters = map[string]bool{}
	}
	s.reporters[user] = true
}

// IssueComment is a comment as a test reads it.
type IssueComment struct {
	ID     int64
	User   string
	Body   string
	System bool
}

// IssueState is an issue as a test reads it.
type IssueState struct {
	Number   int
	Title    string
	Closed   bool
	Labels   []string
	Comments []IssueComment
}

// Issue returns an issue's state.
func (s *Server) Issue(owner, name string, number int) IssueState {
	s.mu.Lock()
	defer s.mu.Unlock()
	is := s.mustIssue(owner, name, number)
	out := IssueState{Number: is.number, Title: is.title, Closed: is.closed, Labels: append([]string(nil), is.labels...)}
	for _, c := range is.comments {
		out.Comments = append(out.Comments, IssueComment{ID: c.id, User: c.user, Body: c.body, System: c.system})
	}
	return out
}

// knowLabel adds a label to the repository's when new. The caller holds
// s.mu.
func (s *Server) knowLabel(ir *issueRepo, name string) *label {
	for _, l := range ir.labels {
		if l.name == name {
			return l
		}
	}
	l := &label{id: s.id(), name: name, color: "ededed"}
	ir.labels = append(ir.labels, l)
	return l
}

// issueUsers lists who wrote issues and comments. The caller holds s.mu.
func (s *Server) issueUsers() []string {
	var out []string
	for _, ir := range s.issues {
		for _, is := range ir.issues {
			out = append(out, is.author)
			for _, c := range is.comments {
				out = append(out, c.user)
			}
		}
	}
	return out
}

// findIssue returns the issue a request names, answering 404 when the
// repository or the issue is missing or hidden, and 410 (GitHub) or 404
// (GitLab, Gitea) for a deleted one. The caller holds s.mu.
func (s *Server) findIssue(w http.ResponseWriter, r *http.Request, full, number string) (*issue, bool) {
	if !s.issuesVisible(w, full) {
		return nil, false
	}
	n, _ := strconv.Atoi(number)
	is := s.issueByNumber(full, n)
	switch {
	case is != nil && is.movedTo != "" && s.Kind == "github" && r.Method == http.MethodGet:
		// GitHub answers a transferred issue's routes with a redirect to
		// the issue in its new repository.
		to, num, _ := strings.Cut(is.movedTo, "#")
		rest := strings.TrimPrefix(r.URL.Path, s.APIPath()+"/repos/"+full+"/issues/"+number)
		w.Header().Set("Location", s.API()+"/repos/"+to+"/issues/"+num+rest)
		writeJSON(w, http.StatusMovedPermanently, map[string]any{"message": "Moved Permanently"})
		return nil, false
	case is == nil:
		writeJSON(w, http.StatusNotFound, map[string]any{"message": s.notFound()})
		return nil, false
	case is.deleted && s.Kind == "github":
		writeJSON(w, http.StatusGone, map[string]any{"message": "This issue was deleted", "documentation_url": "https://docs.github.com/rest/issues/issues#get-an-issue"})
		return nil, false
	case is.deleted:
		writeJSON(w, http.StatusNotFound, map[string]any{"message": s.notFound()})
		return nil, false
	}
	return is, true
}

// issuesVisible answers 404 for a missing or hidden repository. The
// caller holds s.mu.
func (s *Server) issuesVisible(w http.ResponseWriter, full string) bool {
	if s.repos[full] == nil || s.issuesOf(full).hidden {
		writeJSON(w, http.StatusNotFound, map[string]any{"message": s.notFound()})
		return false
	}
	return true
}

// matches reports whether an issue passes a list's filters: open or
// closed, every label of the comma-separated list, an assignee.
func (is *issue) matches(state, labels, assignee string) bool {
	if is.deleted {
		return false
	}
	switch state {
	case "", "open", "opened":
		if is.closed {
			return false
		}
	case "closed":
		if !is.closed {
			return false
		}
	}
	if labels != "" {
		for _, l := range strings.Split(labels, ",") {
			if !slices.Contains(is.labels, strings.TrimSpace(l)) {
				return false
			}
		}
	}
	return assignee == "" || slices.Contains(is.assignees, assignee)
}

// since filters comments by their update time, as GitHub's and Gitea's
// "since" do (updated at or after).
func sinceFilter(r *http.Request) func(*issueComment) bool {
	t, err := time.Parse(time.RFC3339, r.URL.Query().Get("since"))
	if err != nil {
		return func(*issueComment) bool { return true }
	}
	return func(c *issueComment) bool { return !c.updated.Before(t) }
}

// closing matches the keywords with which a merged pull request's body
// closes an issue of its repository ("Closes #12", "fixes #3").
var closing = regexp.MustCompile(`(?i)\b(?:close[sd]?|fix(?:e[sd])?|resolve[sd]?):? #([0-9]+)\b`)

// closeNamed closes the open issues of repository full that body names
// with a closing keyword, as a merge does. The caller holds s.mu.
func (s *Server) closeNamed(full, body string) {
	for _, m := range closing.FindAllStringSubmatch(body, -1) {
		n, _ := strconv.Atoi(m[1])
		if is := s.issueByNumber(full, n); is != nil && !is.closed && !is.deleted {
			is.closed, is.updated = true, s.tick()
		}
	}
}
