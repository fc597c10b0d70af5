package forgetest

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/bonsai-run/bonsai/internal/forge"
)

// Token is the token the servers accept unless a test sets another.
const Token = "forgetest-token-0123456789"

// Server is one fake forge.
type Server struct {
	Kind forge.Kind
	// URL is the server's root (http://127.0.0.1:port); the API is under
	// APIPath.
	URL string
	srv *httptest.Server

	mu         sync.Mutex
	token      string
	repos      map[string]*repo // by owner/name
	nextID     int64
	now        time.Time
	faults     []fault
	limited    int
	retry      int
	requests   []Request
	gitRoot    string // bare repositories served over smart HTTP
	noETags    bool
	pageSize   int
	asyncMerge bool
	// outsiders are the users without write access.
	outsiders map[string]bool
	// scopes are the accepted token's scopes; nil grants what Bonsai
	// needs (Scopes).
	scopes []string
	// caller is the token's user; admin makes it the repositories'
	// admin (Gitea then tells it anybody's permission).
	caller string
	admin  bool
	// openIssues is each repository's open_issues_count, which changes
	// with activity unrelated to its pull requests.
	openIssues map[string]int
	// issues are each repository's issues (issues.go); reporters the
	// GitLab members who may read but not push.
	issues    map[string]*issueRepo
	reporters map[string]bool
}

// Request is one request the server answered.
type Request struct {
	Method string
	Path   string
	Status int
	// Conditional reports an If-None-Match header.
	Conditional bool
}

// repo is a repository's pull requests and checks.
type repo struct {
	owner, name string
	pulls       []*pull
	checks      map[string][]check // by commit
	// mergeStyles are the styles the repository allows; nil allows all.
	mergeStyles []forge.Style
}

// pull is a pull request and what people did on it.
type pull struct {
	number      int
	title, body string
	head, base  string
	headSHA     string
	state       forge.State
	mergeCommit string
	mergedBy    string
	mergeMethod string
	// block, when set, is the answer a merge gets.
	block    *fault
	reviews  []*review
	comments []*comment // inline review comments
	talk     []*comment // conversation comments
	updated  time.Time
	// approvals are GitLab's approvals; reviewers GitLab's reviewer
	// states.
	reviewers map[string]string
}

type review struct {
	id int64
	// commentID is the id of the comment that holds a Gitea review,
	// which its link names.
	commentID int64
	user      string
	state     forge.ReviewKind
	body      string
	at        time.Time
	comments  []*comment
}

type comment struct {
	id   int64
	user string
	body string
	path string
	line int
	// old places a line comment on the old side of the diff.
	old    bool
	at     time.Time
	system bool
}

type check struct {
	name   string
	state  forge.Checks
	detail string
}

// fault is a scripted error answer.
type fault struct {
	method, suffix string
	status         int
	message        string
}

// New starts a fake forge of kind k; it stops when the test ends.
func New(t testing.TB, k forge.Kind) *Server {
	s := &Server{Kind: k, token: Token, repos: map[string]*repo{}, now: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC),
		caller: "bonsai", openIssues: map[string]int{}}
	mux := http.NewServeMux()
	switch k {
	case forge.GitHub:
		s.github(mux)
	case forge.GitLab:
		s.gitlab(mux)
	case forge.Gitea:
		s.gitea(mux)
	default:
		t.Fatalf("forgetest: unknown forge %q", k)
	}
	mux.HandleFunc("/", s.serveGit)
	s.srv = httptest.NewServer(s.recorder(mux))
	s.URL = s.srv.URL
	t.Cleanup(s.srv.Close)
	return s
}

// APIPath is where the API is served: GitHub Enterprise's /api/v3,
// GitLab's /api/v4, Gitea's /api/v1.
func (s *Server) APIPath() string {
	switch s.Kind {
	case forge.GitHub:
		return "/api/v3"
	case forge.GitLab:
		return "/api/v4"
	}
	return "/api/v1"
}

// API is the API base URL.
func (s *Server) API() string { return s.URL + s.APIPath() }

// Host is the server's host:port, a forge.hosts key.
func (s *Server) Host() string { return strings.TrimPrefix(s.URL, "http://") }

// Repo is the forge.Repo of owner/name on this server.
func (s *Server) Repo(owner, name string) forge.Repo {
	return forge.Repo{Kind: s.Kind, Host: s.Host(), API: s.API(), Owner: owner, Name: name}
}

// Client returns a client of owner/name with the accepted token.
func (s *Server) Client(t testing.TB, owner, name string) forge.Client {
	c, err := forge.New(s.Repo(owner, name), forge.Options{Token: Token})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// AddRepo creates the repository owner/name.
func (s *Server) AddRepo(owner, name string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.repos[owner+"/"+name] = &repo{owner: owner, name: name, checks: map[string][]check{}}
}

// SetToken changes the token the server accepts.
func (s *Server) SetToken(tok string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.token = tok
}

// AllowStyles limits the merge styles a repository allows; a merge in
// another is refused with 405 (GitHub, Gitea) or merged the project's way
// (GitLab has no per-merge style but squash).
func (s *Server) AllowStyles(owner, name string, styles ...forge.Style) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.repos[owner+"/"+name].mergeStyles = styles
}

// Fail makes every request whose method is method (or any, when "") and
// whose path ends with suffix answer status with message, until Heal.
func (s *Server) Fail(method, suffix string, status int, message string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.faults = append(s.faults, fault{method: method, suffix: suffix, status: status, message: message})
}

// Heal removes the faults.
func (s *Server) Heal() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.faults = nil
}

// RateLimit makes the next n API requests answer the forge's rate-limit
// response (GitHub: 403 with X-RateLimit-Remaining 0; GitLab and Gitea:
// 429) with Retry-After: retryAfter seconds.
func (s *Server) RateLimit(n, retryAfter int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.limited, s.retry = n, retryAfter
}

// Requests returns the API requests answered so far.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.requests...)
}

// ResetRequests forgets the requests answered so far.
func (s *Server) ResetRequests() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.requests = nil
}

// tick advances the server's clock, so that every change has its own
// time.
func (s *Server) tick() time.Time {
	s.now = s.now.Add(time.Second)
	return s.now
}

func (s *Server) id() int64 {
	s.nextID++
	return s.nextID
}

// recorder counts the API requests, answers faults and rate limits, and
// checks the token.
func (s *Server) recorder(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !strings.HasPrefix(r.URL.Path, s.APIPath()+"/") {
			next.ServeHTTP(w, r)
			return
		}
		rec := &statusWriter{ResponseWriter: w, status: http.StatusOK}
		defer func() {
			s.mu.Lock()
			s.requests = append(s.requests, Request{Method: r.Method, Path: r.URL.Path, Status: rec.status, Conditional: r.Header.Get("If-None-Match") != ""})
			s.mu.Unlock()
		}()
		s.mu.Lock()
		limited, retry, faults, tok := s.limited, s.retry, s.faults, s.token
		if limited > 0 {
			s.limited--
		}
		s.mu.Unlock()
		if limited > 0 {
			rec.Header().Set("Retry-After", strconv.Itoa(retry))
			if s.Kind == forge.GitHub {
				rec.Header().Set("X-RateLimit-Remaining", "0")
				writeJSON(rec, http.StatusForbidden, map[string]any{"message": "API rate limit exceeded", "documentation_url": "https://docs.github.com/rest/overview/rate-limits-for-the-rest-api"})
				return
			}
			writeJSON(rec, http.StatusTooManyRequests, map[string]any{"message": "429 Too Many Requests"})
			return
		}
		if s.tokenOf(r) != tok {
			writeJSON(rec, http.StatusUnauthorized, map[string]any{"message": s.unauthorized()})
			return
		}
		if status, msg := s.refuseScope(rec, r); status != 0 {
			writeJSON(rec, status, msg)
			return
		}
		for _, f := range faults {
			if (f.method == "" || f.method == r.Method) && strings.HasSuffix(r.URL.Path, f.suffix) {
				writeJSON(rec, f.status, map[string]any{"message": f.message})
				return
			}
		}
		next.ServeHTTP(rec, r)
	})
}

// tokenOf reads the token the way the forge takes it.
func (s *Server) tokenOf(r *http.Request) string {
	switch s.Kind {
	case forge.GitHub:
		a := r.Header.Get("Authorization")
		if t, ok := strings.CutPrefix(a, "Bearer "); ok {
			return t
		}
		t, _ := strings.CutPrefix(a, "token ")
		return t
	case forge.GitLab:
		if t := r.Header.Get("PRIVATE-TOKEN"); t != "" {
			return t
		}
		t, _ := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
		return t
	}
	t, _ := strings.CutPrefix(r.Header.Get("Authorization"), "token ")
	return t
}

func (s *Server) unauthorized() string {
	switch s.Kind {
	case forge.GitHub:
		return "Bad credentials"
	case forge.GitLab:
		return "401 Unauthorized"
	}
	return "token is required"
}

type statusWriter struct {
	http.ResponseWriter
	status int
}

func (w *statusWriter) WriteHeader(code int) {
	w.status = code
	w.ResponseWriter.WriteHeader(code)
}

// writeJSON answers v as JSON.
func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// WithoutETags makes the server answer without ETags and never 304, as
// some forge versions do for some routes.
func (s *Server) WithoutETags() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.noETags = true
}

// writeCached answers v with an ETag, or 304 when the request's
// If-None-Match holds it. The caller holds s.mu.
func (s *Server) writeCached(w http.ResponseWriter, r *http.Request, v any) {
	b, _ := json.Marshal(v)
	if s.noETags {
		writeJSON(w, http.StatusOK, v)
		return
	}
	sum := sha256.Sum256(b)
	etag := `W/"` + hex.EncodeToString(sum[:12]) + `"`
	w.Header().Set("ETag", etag)
	for _, m := range strings.Split(r.Header.Get("If-None-Match"), ",") {
		if m = strings.TrimSpace(m); m == etag || strings.TrimPrefix(m, "W/") == strings.TrimPrefix(etag, "W/") {
			w.WriteHeader(http.StatusNotModified)
			return
		}
	}
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(append(b, '\n'))
}

// readJSON decodes a request body.
func readJSON(r *http.Request, v any) error {
	return json.NewDecoder(http.MaxBytesReader(nil, r.Body, 1<<20)).Decode(v)
}

// find returns the repository and pull request of a request, answering
// 404 when either is missing (pull nil when number is "").
func (s *Server) find(w http.ResponseWriter, fullPath, number string) (*repo, *pull, bool) {
	rp := s.repos[fullPath]
	if rp == nil {
		writeJSON(w, http.StatusNotFound, map[string]any{"message": s.notFound()})
		return nil, nil, false
	}
	if number == "" {
		return rp, nil, true
	}
	n, _ := strconv.Atoi(number)
	for _, p := range rp.pulls {
		if p.number == n {
			return rp, p, true
		}
	}
	writeJSON(w, http.StatusNotFound, map[string]any{"message": s.notFound()})
	return nil, nil, false
}

func (s *Server) notFound() string {
	if s.Kind == forge.GitLab {
		return "404 Not found"
	}
	return "Not Found"
}

// pullOf finds a pull request for the scripting methods.
func (s *Server) pullOf(owner, name string, number int) *pull {
	rp := s.repos[owner+"/"+name]
	if rp == nil {
		panic(fmt.Sprintf("forgetest: no repository %s/%s", owner, name))
	}
	for _, p := range rp.pulls {
		if p.number == number {
			return p
		}
	}
	panic(fmt.Sprintf("forgetest: no pull request %d in %s/%s", number, owner, name))
}

// time formats t as the forges do.
func stamp(t time.Time) string { return t.UTC().Format(time.RFC3339) }

func itoa(n int) string     { return strconv.Itoa(n) }
func itoa64(n int64) string { return strconv.FormatInt(n, 10) }

// PageSize makes the lists of reviews and comments answer n items a page,
// with a Link header to the next one, as the forges do past their page
// size; 0 answers everything at once.
func (s *Server) PageSize(n int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.pageSize = n
}

// paginate returns the requested page of items and sets the Link header
// to the next one. The caller holds s.mu.
func (s *Server) paginate(w http.ResponseWriter, r *http.Request, items []map[string]any) []map[string]any {
	size := s.pageSize
	if size <= 0 {
		return items
	}
	page, _ := strconv.Atoi(r.URL.Query().Get("page"))
	page = max(page, 1)
	start := min((page-1)*size, len(items))
	end := min(start+size, len(items))
	if end < len(items) {
		q := r.URL.Query()
		q.Set("page", strconv.Itoa(page+1))
		w.Header().Set("Link", fmt.Sprintf(`<%s%s?%s>; rel="next"`, s.URL, r.URL.EscapedPath(), q.Encode()))
	}
	return items[start:end]
}

// AsyncMerge makes GitLab's merge answer before the merge is done, as it
// does when it merges in the background: the answer says opened, the next
// read merged.
func (s *Server) AsyncMerge() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.asyncMerge = true
}

// editPull edits the title, body or state (closed only) of the pull
// request the path names, as GitHub's and Gitea's PATCH do: a body that
// is not JSON gets bad and its message, an edit ok and the pull request
// as render shows it.
func (s *Server) editPull(w http.ResponseWriter, r *http.Request, bad int, badMessage string, ok int, render func(*repo, *pull) map[string]any) {
	var in struct {
		Title *string
		Body  *string
		State *string
	}
	if err := readJSON(r, &in); err != nil {
		writeJSON(w, bad, map[string]any{"message": badMessage})
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	rp, p, found := s.find(w, fullName(r), r.PathValue("number"))
	if !found {
		return
	}
	if in.Title != nil {
		p.title = *in.Title
	}
	if in.Body != nil {
		p.body = *in.Body
	}
	if in.State != nil && *in.State == "closed" && p.state == forge.Open {
		p.state = forge.Closed
	}
	p.updated = s.tick()
	writeJSON(w, ok, render(rp, p))
}
