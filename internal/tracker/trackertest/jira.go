package trackertest

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"testing"
	"time"
)

// The account the fake Jira accepts unless a test sets another.
const (
	JiraEmail   = "bonsai@example.com"
	JiraToken   = "ATATT-trackertest0123456789"
	JiraAccount = "acc-bonsai"
)

// The project permissions the fake Jira enforces.
const (
	Browse     = "BROWSE_PROJECTS"
	AddComment = "ADD_COMMENTS"
	Edit       = "EDIT_ISSUES"
	Transition = "TRANSITION_ISSUES"
)

// Jira is a fake Jira Cloud site at URL serving REST API v3.
type Jira struct {
	URL string

	mu        sync.Mutex
	auth      string
	users     map[string]string // account id → display name
	projects  map[string]*jrProject
	issues    []*jrIssue
	moved     map[string]string // old key → new key
	userPick  bool              // the account may browse users (Browse users and groups)
	now       time.Time
	next      int
	limited   int
	retry     int
	pageSize  int
	requests  []JiraRequest
	statusCat map[string]string
}

// JiraRequest is one request the fake Jira answered.
type JiraRequest struct {
	Method, Path string
	Status       int
}

type jrProject struct {
	key   string
	perms map[string][]string // account id → permissions
	count int
}

type jrIssue struct {
	id, key     string
	project     *jrProject
	summary     string
	description json.RawMessage
	labels      []string
	reporter    string
	status      string
	updated     time.Time
	deleted     bool
	comments    []*jrComment
}

type jrComment struct {
	id               int
	author           string
	body             json.RawMessage
	created, updated time.Time
	props            []string
}

var jiraStatuses = []string{"To Do", "In Progress", "In Review", "Done"}

// NewJira starts a fake Jira Cloud site; it stops when the test ends.
func NewJira(t testing.TB) *Jira {
	j := &Jira{auth: basic(JiraEmail, JiraToken), users: map[string]string{JiraAccount: "Bonsai"}, projects: map[string]*jrProject{},
		moved: map[string]string{}, userPick: true, now: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC), next: 10000,
		statusCat: map[string]string{"To Do": "new", "In Progress": "indeterminate", "In Review": "indeterminate", "Done": "done"}}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /rest/api/3/search/jql", j.search)
	mux.HandleFunc("GET /rest/api/3/issue/{key}", j.getIssue)
	mux.HandleFunc("GET /rest/api/3/issue/{key}/comment", j.comments)
	mux.HandleFunc("POST /rest/api/3/issue/{key}/comment", j.addComment)
	mux.HandleFunc("GET /rest/api/3/issue/{key}/transitions", j.transitions)
	mux.HandleFunc("POST /rest/api/3/issue/{key}/transitions", j.doTransition)
	mux.HandleFunc("GET /rest/api/3/user/permission/search", j.permissionSearch)
	mux.HandleFunc("GET /rest/api/3/myself", j.myself)
	srv := httptest.NewServer(j.guard(mux))
	t.Cleanup(srv.Close)
	j.URL = srv.URL
	return j
}

func basic(email, token string) string {
	return "Basic " + base64.StdEncoding.EncodeToString([]byte(email+":"+token))
}

func (j *Jira) tick() time.Time {
	j.now = j.now.Add(time.Second)
	return j.now
}

func jiraStamp(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05.000-0700") }

func jiraErr(w http.ResponseWriter, status int, msg string) {
	writeJSON(w, status, map[string]any{"errorMessages": []string{msg}, "errors": map[string]any{}})
}

// guard records requests, answers rate limits and checks the token.
func (j *Jira) guard(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rec := &status{ResponseWriter: w, code: 200}
		defer func() {
			j.mu.Lock()
			j.requests = append(j.requests, JiraRequest{Method: r.Method, Path: r.URL.Path, Status: rec.code})
			j.mu.Unlock()
		}()
		j.mu.Lock()
		limited, retry, auth := j.limited, j.retry, j.auth
		if limited > 0 {
			j.limited--
		}
		j.mu.Unlock()
		if limited > 0 {
			rec.Header().Set("Retry-After", fmt.Sprint(retry))
			jiraErr(rec, http.StatusTooManyRequests, "Rate limit exceeded.")
			return
		}
		if r.Header.Get("Authorization") != auth {
			jiraErr(rec, http.StatusUnauthorized, "Client must be authenticated to access this resource.")
			return
		}
		next.ServeHTTP(rec, r)
	})
}

type status struct {
	http.ResponseWriter
	code int
}

func (s *status) WriteHeader(c int) { s.code = c; s.ResponseWriter.WriteHeader(c) }

// AddProject creates project key; the token's account holds every
// permission on it.
func (j *Jira) AddProject(key string) {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.projects[key] = &jrProject{key: key, perms: map[string][]string{JiraAccount: {Browse, AddComment, Edit, Transition}}}
}

// AddUser names an account and grants it permissions on project.
func (j *Jira) AddUser(project, id, name string, perms ...string) {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.users[id] = name
	j.projects[project].perms[id] = perms
}

// SetPermissions replaces the token's account's permissions on project.
func (j *Jira) SetPermissions(project string, perms ...string) {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.projects[project].perms[JiraAccount] = perms
}

// NoUserBrowsing takes away the account's global permission to browse
// users, which /user/permission/search needs.
func (j *Jira) NoUserBrowsing() { j.mu.Lock(); j.userPick = false; j.mu.Unlock() }

// SetToken changes the accepted token.
func (j *Jira) SetToken(tok string) { j.mu.Lock(); j.auth = basic(JiraEmail, tok); j.mu.Unlock() }

// RateLimit makes the next n requests answer 429 with Retry-After.
func (j *Jira) RateLimit(n, retryAfter int) {
	j.mu.Lock()
	j.limited, j.retry = n, retryAfter
	j.mu.Unlock()
}

// PageSize makes searches answer n issues a page.
func (j *Jira) PageSize(n int) { j.mu.Lock(); j.pageSize = n; j.mu.Unlock() }

// Requests returns the requests answered so far.
func (j *Jira) Requests() []JiraRequest {
	j.mu.Lock()
	defer j.mu.Unlock()
	return slices.Clone(j.requests)
}

// ResetRequests forgets the requests answered so far.
func (j *Jira) ResetRequests() { j.mu.Lock(); j.requests = nil; j.mu.Unlock() }

// OpenIssue creates an issue in project with status, reporter, summary,
// description (an ADF document, or nil) and labels; it returns its key.
func (j *Jira) OpenIssue(project, status, reporter, summary string, description json.RawMessage, labels ...string) string {
	j.mu.Lock()
	defer j.mu.Unlock()
	p := j.projects[project]
	p.count++
	j.next++
	is := &jrIssue{id: fmt.Sprint(j.next), key: fmt.Sprintf("%s-%d", project, p.count), project: p, summary: summary, description: description,
		labels: labels, reporter: reporter, status: status, updated: j.tick()}
	j.issues = append(j.issues, is)
	return is.key
}

// Comment adds a comment by account id, its text one paragraph, and
// returns its id.
func (j *Jira) Comment(key, account, text string) string {
	j.mu.Lock()
	defer j.mu.Unlock()
	return fmt.Sprint(j.comment(j.issue(key), account, paragraphDoc(text), nil).id)
}

func paragraphDoc(text string) json.RawMessage {
	b, _ := json.Marshal(map[string]any{"type": "doc", "version": 1, "content": []any{map[string]any{"type": "paragraph",
		"content": []any{map[string]any{"type": "text", "text": text}}}}})
	return b
}

func (j *Jira) comment(is *jrIssue, account string, body json.RawMessage, props []string) *jrComment {
	j.next++
	now := j.tick()
	c := &jrComment{id: j.next, author: account, body: body, created: now, updated: now, props: props}
	is.comments = append(is.comments, c)
	is.updated = now
	return c
}

// EditComment replaces a comment's text.
func (j *Jira) EditComment(key, id, text string) {
	j.mu.Lock()
	defer j.mu.Unlock()
	for _, c := range j.issue(key).comments {
		if fmt.Sprint(c.id) == id {
			c.body, c.updated = paragraphDoc(text), j.tick()
		}
	}
}

// DeleteIssue deletes an issue (404 from then on).
func (j *Jira) DeleteIssue(key string) { j.mu.Lock(); j.issue(key).deleted = true; j.mu.Unlock() }

// MoveIssue moves an issue to project and returns its new key; the old
// key still finds it, as Jira does.
func (j *Jira) MoveIssue(key, project string) string {
	j.mu.Lock()
	defer j.mu.Unlock()
	is, p := j.issue(key), j.projects[project]
	p.count++
	old := is.key
	is.key, is.project, is.updated = fmt.Sprintf("%s-%d", project, p.count), p, j.tick()
	j.moved[old] = is.key
	return is.key
}

// Status returns an issue's status and its comments' raw bodies.
func (j *Jira) Status(key string) (string, []string) {
	j.mu.Lock()
	defer j.mu.Unlock()
	is := j.issue(key)
	var bodies []string
	for _, c := range is.comments {
		bodies = append(bodies, string(c.body))
	}
	return is.status, bodies
}

// issue finds an issue by key, id or former key. The caller holds j.mu.
func (j *Jira) issue(key string) *jrIssue {
	if k, ok := j.moved[key]; ok {
		key = k
	}
	for _, is := range j.issues {
		if is.key == key || is.id == key {
			return is
		}
	}
	return nil
}

// may reports whether account holds perm on project. The caller holds
// j.mu.
func (p *jrProject) may(account, perm string) bool { return slices.Contains(p.perms[account], perm) }

// visible finds an issue the token's account may browse, answering 404
// as Jira does otherwise. The caller holds j.mu.
func (j *Jira) visible(w http.ResponseWriter, key string) (*jrIssue, bool) {
	is := j.issue(key)
	if is == nil || is.deleted || !is.project.may(JiraAccount, Browse) {
		jiraErr(w, http.StatusNotFound, "Issue does not exist or you do not have permission to see it.")
		return nil, false
	}
	return is, true
}

func (j *Jira) user(id string) any {
	if id == "" {
		return nil
	}
	return map[string]any{"accountId": id, "displayName": j.users[id], "active": true}
}

func (j *Jira) issueJSON(is *jrIssue) map[string]any {
	desc := any(nil)
	if is.description != nil {
		desc = is.description
	}
	return map[string]any{"id": is.id, "key": is.key, "self": j.URL + "/rest/api/3/issue/" + is.id, "fields": map[string]any{
		"summary": is.summary, "description": desc, "labels": append([]string{}, is.labels...), "reporter": j.user(is.reporter), "assignee": nil,
		"updated": jiraStamp(is.updated), "status": map[string]any{"name": is.status, "statusCategory": map[string]any{"key": j.statusCat[is.status]}},
		"comment": map[string]any{"total": len(is.comments)}}}
}

func (j *Jira) commentJSON(c *jrComment, expand bool) map[string]any {
	m := map[string]any{"id": fmt.Sprint(c.id), "author": j.user(c.author), "body": c.body, "created": jiraStamp(c.created), "updated": jiraStamp(c.updated)}
	if expand {
		props := []any{}
		for _, p := range c.props {
			props = append(props, map[string]any{"key": p, "value": map[string]any{}})
		}
		m["properties"] = props
	}
	return m
}
