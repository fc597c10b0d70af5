package tracker_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"

	"github.com/bonsai-run/bonsai/internal/forge"
	"github.com/bonsai-run/bonsai/internal/forge/forgetest"
	"github.com/bonsai-run/bonsai/internal/tracker"
	"github.com/bonsai-run/bonsai/internal/tracker/trackertest"
)

// idleFive is one tracker of each kind, each with an issue to sync, and
// a way to count the requests all five answered.
type idleFive struct {
	trackers []tracker.Tracker
	queries  []tracker.Query
	count    func() int
	reset    func()
}

func newIdleFive(t testing.TB) idleFive {
	var f idleFive
	var resets []func()
	var counts []func() int
	for _, k := range kinds {
		srv := forgetest.New(t, k)
		srv.AddRepo(owner, name)
		if k == forge.Gitea {
			srv.SetScopes("write:issue", "read:repository")
		}
		srv.OpenIssue(owner, name, "carol", "An issue", "- [ ] done", "bonsai")
		tr, err := tracker.NewForge(srv.Repo(owner, name), tracker.Options{Token: forgetest.Token})
		if err != nil {
			t.Fatal(err)
		}
		f.trackers, f.queries = append(f.trackers, tr), append(f.queries, tracker.Query{Labels: []string{"bonsai"}})
		resets, counts = append(resets, srv.ResetRequests), append(counts, func() int { return len(srv.Requests()) })
	}
	ln := trackertest.NewLinear(t)
	ln.AddTeam("ENG")
	ln.OpenIssue("ENG", "Todo", "u-bonsai", "An issue", "")
	lt, err := tracker.NewLinear(ln.URL, tracker.Options{Token: trackertest.LinearKey, Team: "ENG"})
	if err != nil {
		t.Fatal(err)
	}
	jr := trackertest.NewJira(t)
	jr.AddProject("PROJ")
	jr.OpenIssue("PROJ", "To Do", trackertest.JiraAccount, "An issue", nil, "bonsai")
	jt, err := tracker.NewJira(jr.URL, tracker.Options{Email: trackertest.JiraEmail, Token: trackertest.JiraToken})
	if err != nil {
		t.Fatal(err)
	}
	f.trackers = append(f.trackers, lt, jt)
	f.queries = append(f.queries, engTodo, tracker.Query{JQL: "project = PROJ AND labels = bonsai"})
	resets = append(resets, ln.ResetRequests, jr.ResetRequests)
	counts = append(counts, func() int { return len(ln.Requests()) }, func() int { return len(jr.Requests()) })
	f.reset = func() {
		for _, r := range resets {
			r()
		}
	}
	f.count = func() int {
		n := 0
		for _, c := range counts {
			n += c()
		}
		return n
	}
	return f
}

// sync lists every tracker against its validator and returns how many
// said nothing changed.
func (f idleFive) sync(t testing.TB, validators []string) int {
	unchanged := 0
	for i, tr := range f.trackers {
		l, err := tr.List(context.Background(), f.queries[i], validators[i])
		if err != nil {
			t.Fatal(err)
		}
		validators[i] = l.Validator
		if l.NotModified {
			unchanged++
		}
	}
	return unchanged
}

// An idle sync of five trackers, one of each kind, costs one request
// each.
func TestIdleSyncOfFiveTrackers(t *testing.T) {
	t.Parallel()
	f := newIdleFive(t)
	validators := make([]string, len(f.trackers))
	f.sync(t, validators)
	f.reset()
	if unchanged := f.sync(t, validators); unchanged != 5 || f.count() != 5 {
		t.Fatalf("idle sync: %d of 5 unchanged, %d requests", unchanged, f.count())
	}
}

// BenchmarkIdleSyncFiveTrackers measures an idle sync of five trackers
// on the fakes (one request each).
func BenchmarkIdleSyncFiveTrackers(b *testing.B) {
	f := newIdleFive(b)
	validators := make([]string, len(f.trackers))
	f.sync(b, validators)
	f.reset()
	for b.Loop() {
		f.sync(b, validators)
	}
	b.ReportMetric(float64(f.count())/float64(b.N), "requests/op")
}

// The credentials go only to the API host: a redirect to another host
// arrives without them.
func TestCredentialsStayOnTheAPIHost(t *testing.T) {
	t.Parallel()
	var leaked atomic.Value
	leaked.Store("")
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		leaked.Store(r.Header.Get("Authorization"))
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"id":"1","key":"PROJ-1","fields":{"summary":"elsewhere"}}`))
	}))
	defer other.Close()
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") == "" {
			t.Errorf("the API host got no credentials")
		}
		http.Redirect(w, r, other.URL+r.URL.Path, http.StatusFound)
	}))
	defer site.Close()
	for _, open := range []func() (tracker.Tracker, error){
		func() (tracker.Tracker, error) {
			return tracker.NewJira(site.URL, tracker.Options{Email: "a@b", Token: "secret-token"})
		},
		func() (tracker.Tracker, error) {
			return tracker.NewLinear(site.URL+"/graphql", tracker.Options{Token: "secret-token"})
		},
	} {
		tr, err := open()
		if err != nil {
			t.Fatal(err)
		}
		leaked.Store("unset")
		_, _ = tr.Issue(context.Background(), "PROJ-1")
		if got := leaked.Load().(string); got != "" {
			t.Fatalf("%s: the other host got Authorization %q", tr.Kind(), got)
		}
	}
}
