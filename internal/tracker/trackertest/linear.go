package trackertest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"regexp"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"
)

// LinearKey is the personal API key the fake Linear accepts unless a
// test sets another.
const LinearKey = "lin_api_trackertest0123456789"

// Linear is a fake Linear GraphQL API at URL (the endpoint itself).
type Linear struct {
	URL string

	mu       sync.Mutex
	key      string
	viewer   string // the key's user id
	scopes   []string
	teamOnly []string // teams the key may read; nil for all
	now      time.Time
	next     int
	teams    map[string]*lnTeam // by key
	users    map[string]string  // id → name
	issues   []*lnIssue
	limited  int
	resetIn  time.Duration
	pageSize int
	requests []string
}

type lnTeam struct {
	id, key string
	members []string
	states  []lnState
	count   int
}

type lnState struct{ id, name, kind string }

type lnIssue struct {
	id, identifier string
	number         int
	team           *lnTeam
	title, body    string
	state          lnState
	labels         []string
	creator        string
	trashed        bool
	updated        time.Time
	comments       []*lnComment
}

type lnComment struct {
	id               string
	user             string // "" for an integration
	body             string
	created, updated time.Time
	edited           *time.Time
}

// NewLinear starts a fake Linear whose key belongs to user "bonsai" with
// read and write scopes; it stops when the test ends.
func NewLinear(t testing.TB) *Linear {
	l := &Linear{key: LinearKey, viewer: "u-bonsai", scopes: []string{"read", "write"}, now: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC),
		teams: map[string]*lnTeam{}, users: map[string]string{"u-bonsai": "bonsai"}}
	srv := httptest.NewServer(http.HandlerFunc(l.serve))
	t.Cleanup(srv.Close)
	l.URL = srv.URL + "/graphql"
	return l
}

func (l *Linear) tick() time.Time {
	l.now = l.now.Add(time.Second)
	return l.now
}

func (l *Linear) uuid(kind string) string {
	l.next++
	return fmt.Sprintf("%s-%08d-0000-4000-8000-000000000000", kind, l.next)
}

// AddTeam creates team key with its default workflow states (Backlog,
// Todo, In Progress, In Review, Done, Canceled) and members (user ids;
// the key's user "u-bonsai" is one).
func (l *Linear) AddTeam(key string, members ...string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	t := &lnTeam{id: l.uuid("team"), key: key, members: append([]string{"u-bonsai"}, members...)}
	for _, s := range [][2]string{{"Backlog", "backlog"}, {"Todo", "unstarted"}, {"In Progress", "started"}, {"In Review", "started"}, {"Done", "completed"}, {"Canceled", "canceled"}} {
		t.states = append(t.states, lnState{id: l.uuid("state"), name: s[0], kind: s[1]})
	}
	l.teams[key] = t
}

// AddUser names user id.
func (l *Linear) AddUser(id, name string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.users[id] = name
}

// OpenIssue creates an issue in team in workflow state, by creator, and
// returns its identifier ("ENG-1").
func (l *Linear) OpenIssue(team, state, creator, title, body string, labels ...string) string {
	l.mu.Lock()
	defer l.mu.Unlock()
	t := l.teams[team]
	t.count++
	is := &lnIssue{id: l.uuid("issue"), identifier: fmt.Sprintf("%s-%d", team, t.count), number: t.count, team: t, title: title, body: body,
		state: t.stateNamed(state), labels: labels, creator: creator, updated: l.tick()}
	l.issues = append(l.issues, is)
	return is.identifier
}

func (t *lnTeam) stateNamed(name string) lnState {
	for _, s := range t.states {
		if s.name == name {
			return s
		}
	}
	panic("trackertest: no workflow state " + name)
}

func (l *Linear) issue(ref string) *lnIssue {
	for _, is := range l.issues {
		if is.id == ref || is.identifier == ref {
			return is
		}
	}
	return nil
}

// Comment adds a comment by user id ("" for an integration) and returns
// its id.
func (l *Linear) Comment(identifier, user, body string) string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.comment(l.issue(identifier), user, body).id
}

func (l *Linear) comment(is *lnIssue, user, body string) *lnComment {
	now := l.tick()
	c := &lnComment{id: l.uuid("comment"), user: user, body: body, created: now, updated: now}
	is.comments = append(is.comments, c)
	is.updated = now
	return c
}

// EditComment changes a comment's body.
func (l *Linear) EditComment(identifier, id, body string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, c := range l.issue(identifier).comments {
		if c.id == id {
			now := l.tick()
			c.body, c.updated, c.edited = body, now, &now
		}
	}
}

// Trash moves an issue to the trash.
func (l *Linear) Trash(identifier string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.issue(identifier).trashed = true
}

// State returns an issue's workflow state and its comments' bodies.
func (l *Linear) State(identifier string) (string, []string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	is := l.issue(identifier)
	var bodies []string
	for _, c := range is.comments {
		bodies = append(bodies, c.body)
	}
	return is.state.name, bodies
}

// SetKey changes the accepted key; SetScopes its scopes ("read",
// "write"); RestrictTeams the teams it may read.
func (l *Linear) SetKey(k string) { l.mu.Lock(); l.key = k; l.mu.Unlock() }

// SetScopes sets the key's scopes: "read" reads, "write" also mutates.
func (l *Linear) SetScopes(s ...string) { l.mu.Lock(); l.scopes = s; l.mu.Unlock() }

// RestrictTeams limits the key to the teams named: others' issues are
// not found, as for a key restricted to teams.
func (l *Linear) RestrictTeams(keys ...string) { l.mu.Lock(); l.teamOnly = keys; l.mu.Unlock() }

// PageSize makes connections answer n nodes a page.
func (l *Linear) PageSize(n int) { l.mu.Lock(); l.pageSize = n; l.mu.Unlock() }

// RateLimit makes the next n requests answer Linear's rate limit error
// (RATELIMITED, X-RateLimit-Requests-Reset resetIn from now).
func (l *Linear) RateLimit(n int, resetIn time.Duration) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.limited, l.resetIn = n, resetIn
}

// Requests returns the operation names answered so far; ResetRequests
// forgets them.
func (l *Linear) Requests() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.requests)
}

// ResetRequests forgets the requests answered so far.
func (l *Linear) ResetRequests() { l.mu.Lock(); l.requests = nil; l.mu.Unlock() }

var opName = regexp.MustCompile(`^\s*(query|mutation)\s+(\w+)`)

func gqlErr(w http.ResponseWriter, status int, code, msg string) {
	writeJSON(w, status, map[string]any{"errors": []any{map[string]any{"message": msg, "extensions": map[string]any{"code": code}}}})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// serve answers one GraphQL request: the key, the rate limit, the
// operation by name, its scope.
func (l *Linear) serve(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || r.URL.Path != "/graphql" {
		http.NotFound(w, r)
		return
	}
	var in struct {
		Query     string         `json:"query"`
		Variables map[string]any `json:"variables"`
	}
	if err := json.NewDecoder(http.MaxBytesReader(w, r.Body, 1<<20)).Decode(&in); err != nil {
		gqlErr(w, http.StatusBadRequest, "GRAPHQL_PARSE_FAILED", "Invalid JSON body")
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	m := opName.FindStringSubmatch(in.Query)
	name := ""
	if m != nil {
		name = m[2]
	}
	l.requests = append(l.requests, name)
	if l.limited > 0 {
		l.limited--
		w.Header().Set("X-RateLimit-Requests-Reset", strconv.FormatInt(time.Now().Add(l.resetIn).UnixMilli(), 10))
		gqlErr(w, http.StatusBadRequest, "RATELIMITED", "Rate limit exceeded")
		return
	}
	if r.Header.Get("Authorization") != l.key {
		gqlErr(w, http.StatusBadRequest, "AUTHENTICATION_ERROR", "Authentication required, not authenticated")
		return
	}
	if m == nil {
		gqlErr(w, http.StatusBadRequest, "GRAPHQL_VALIDATION_FAILED", "an operation name is required")
		return
	}
	if m[1] == "mutation" && !slices.Contains(l.scopes, "write") {
		gqlErr(w, http.StatusBadRequest, "FORBIDDEN", "Invalid scope: `write` required")
		return
	}
	h, ok := l.ops()[name]
	if !ok {
		gqlErr(w, http.StatusBadRequest, "GRAPHQL_VALIDATION_FAILED", "Unknown operation "+name)
		return
	}
	data, err := h(in.Variables)
	if err != nil {
		gqlErr(w, http.StatusOK, "INVALID_INPUT", err.Error())
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"data": data})
}

// visible reports whether the key may read team t.
func (l *Linear) visible(t *lnTeam) bool {
	return l.teamOnly == nil || slices.Contains(l.teamOnly, t.key)
}
