package web

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/credentials"
	"github.com/bonsai-run/bonsai/internal/hook"
	"github.com/bonsai-run/bonsai/internal/store"
)

const hookSecret = "whsec-0123456789abcdef"

// A GitHub issues.labeled delivery, as GitHub sends it (the fields the
// tests read).
const labeledDelivery = `{"action":"labeled","label":{"name":"bonsai","color":"0e8a16"},
"issue":{"number":101,"title":"Fix the login redirect","body":"After login we land on /.\n\n- [ ] lands on next",
"html_url":"https://github.com/acme/widget/issues/101","user":{"login":"carol"},"labels":[{"name":"bonsai"}]},
"repository":{"full_name":"acme/widget"},"sender":{"login":"carol"}}`

// hookEnv is a server whose hooks' secrets are sealed by a real
// credentials store in its data directory.
func hookEnv(t *testing.T) *env {
	t.Helper()
	e := newEnv(t)
	e.srv.opts.HookSecrets = credentials.Open(string(e.dir), credentials.Options{Keyring: credentials.KindFile})
	e.project(t, "demo")
	return e
}

// addHook stores h with its secret sealed, as `bonsai hook add` does.
func (e *env) addHook(t *testing.T, h board.Hook) board.Hook {
	t.Helper()
	sealed, err := e.srv.opts.HookSecrets.Seal(hook.SecretName(h.Name), hookSecret)
	if err != nil {
		t.Fatal(err)
	}
	h.Secret = sealed
	if h.ProjectSlug == "" {
		h.ProjectSlug = "demo"
	}
	out, err := e.db.CreateHook(context.Background(), h)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func ticketHook(name string, scheme board.HookScheme) board.Hook {
	return board.Hook{Name: name, Scheme: scheme, Action: board.HookTicket, Events: []string{"issues.labeled"},
		When: map[string]string{"label.name": "bonsai"}, Title: "{{issue.title}}",
		Description: "{{issue.body}}\n\nFrom {{issue.html_url}}", State: board.Research}
}

// deliver posts body to the hook name with the headers its sender makes.
func (e *env) deliver(t *testing.T, h board.Hook, secret, id, event, body string) response {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, e.ts.URL+"/hooks/"+h.Name, strings.NewReader(body))
	req.Header = hook.Headers(h, secret, id, event, []byte(body), time.Now())
	return send(t, anon(), req)
}

func (e *env) tickets(t *testing.T) []board.Ticket {
	t.Helper()
	ts, err := e.db.Tickets(context.Background(), store.TicketFilter{ProjectSlug: "demo"})
	if err != nil {
		t.Fatal(err)
	}
	return ts
}

func (e *env) deliveries(t *testing.T, name string) []board.HookDelivery {
	t.Helper()
	ds, err := e.db.HookDeliveries(context.Background(), name, 0)
	if err != nil {
		t.Fatal(err)
	}
	return ds
}

// waitDeliveries waits until the hook's log holds n deliveries: a refusal
// of an unproven sender is logged after its answer is sent.
func (e *env) waitDeliveries(t *testing.T, name string, n int) []board.HookDelivery {
	t.Helper()
	for {
		if ds := e.deliveries(t, name); len(ds) >= n {
			return ds
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// withOutcome returns the deliveries of ds with outcome o.
func withOutcome(ds []board.HookDelivery, o board.DeliveryOutcome) []board.HookDelivery {
	var out []board.HookDelivery
	for _, d := range ds {
		if d.Outcome == o {
			out = append(out, d)
		}
	}
	return out
}

// TestHooks_GitHubLabeledCreatesTheTicket posts GitHub's issues.labeled
// delivery to the real server, with no web token, and waits for the
// ticket through the API, as a person's script would.
func TestHooks_GitHubLabeledCreatesTheTicket(t *testing.T) {
	t.Parallel()
	e := hookEnv(t)
	h := e.addHook(t, ticketHook("github", board.HookGitHub))
	start := time.Now()
	r := e.deliver(t, h, hookSecret, "72d3162e-cc78-11e3-81ab-4c9367dc0958", "issues", labeledDelivery)
	wantStatus(t, r, http.StatusCreated)
	wantBody(t, r, `"outcome": "done"`, `"ticket": "demo#1"`)
	for {
		got := e.api(t, "GET", "/api/projects/demo/tickets/1", "")
		if got.status == http.StatusOK {
			wantBody(t, got, `"title": "Fix the login redirect"`, `"state": "RESEARCH"`, "From https://github.com/acme/widget/issues/101")
			break
		}
		time.Sleep(5 * time.Millisecond)
	}
	t.Logf("delivery posted to ticket seen through the API: %s", time.Since(start))
	ds := e.deliveries(t, "github")
	if len(ds) != 1 || ds[0].Outcome != board.DeliveryDone || ds[0].Ticket != 1 || ds[0].Event != "issues.labeled" {
		t.Fatalf("delivery log %+v", ds)
	}
}

// TestHooks_EachSchemeEndToEnd: a delivery of each scheme creates its
// ticket; a wrong secret of each is refused and creates none.
func TestHooks_EachSchemeEndToEnd(t *testing.T) {
	t.Parallel()
	e := hookEnv(t)
	for i, s := range board.HookSchemes() {
		h := ticketHook("h-"+string(s), s)
		h.Events = nil
		if s == board.HookHMAC {
			h.Header = "X-Acme-Signature"
		}
		h = e.addHook(t, h)
		wantStatus(t, e.deliver(t, h, "not-the-secret", "bad-"+string(s), "issues", labeledDelivery), http.StatusUnauthorized)
		r := e.deliver(t, h, hookSecret, "ok-"+string(s), "issues", labeledDelivery)
		wantStatus(t, r, http.StatusCreated)
		wantBody(t, r, fmt.Sprintf(`"ticket": "demo#%d"`, i+1))
		ds := e.waitDeliveries(t, h.Name, 2)
		refused := withOutcome(ds, board.DeliveryRefused)
		if len(ds) != 2 || len(refused) != 1 || !strings.Contains(refused[0].Detail, "does not match") &&
			!strings.Contains(refused[0].Detail, "not the hook's secret") {
			t.Fatalf("%s: delivery log %+v", s, ds)
		}
	}
	if n := len(e.tickets(t)); n != 4 {
		t.Fatalf("%d tickets, want 4", n)
	}
}

// TestHooks_ReplayIsRefused: the same delivery id twice makes one ticket;
// the second answer is 409 and the log says replay.
func TestHooks_ReplayIsRefused(t *testing.T) {
	t.Parallel()
	e := hookEnv(t)
	h := e.addHook(t, ticketHook("github", board.HookGitHub))
	wantStatus(t, e.deliver(t, h, hookSecret, "d-1", "issues", labeledDelivery), http.StatusCreated)
	r := e.deliver(t, h, hookSecret, "d-1", "issues", labeledDelivery)
	wantStatus(t, r, http.StatusConflict)
	wantBody(t, r, `"code": "replay"`, "was received before")
	if n := len(e.tickets(t)); n != 1 {
		t.Fatalf("%d tickets after a replay, want 1", n)
	}
	ds := e.deliveries(t, "github")
	if len(ds) != 2 || ds[0].Outcome != board.DeliveryReplay || ds[1].Outcome != board.DeliveryDone {
		t.Fatalf("delivery log %+v", ds)
	}
	// A generic hook's replay with a fresh signature and the same nonce
	// is refused too.
	g := e.addHook(t, ticketHook("generic", board.HookHMAC))
	wantStatus(t, e.deliver(t, g, hookSecret, "nonce-1", "issues", labeledDelivery), http.StatusCreated)
	wantStatus(t, e.deliver(t, g, hookSecret, "nonce-1", "issues", labeledDelivery), http.StatusConflict)
}

// TestHooks_MissingFieldsAndIgnoredEvents: a payload without a field the
// template names is refused with 422 naming the field; another event, or
// another label, is ignored with 200; neither makes a ticket.
func TestHooks_MissingFieldsAndIgnoredEvents(t *testing.T) {
	t.Parallel()
	e := hookEnv(t)
	h := e.addHook(t, ticketHook("github", board.HookGitHub))
	r := e.deliver(t, h, hookSecret, "d-1", "issues", `{"action":"labeled","label":{"name":"bonsai"},"issue":{"number":3}}`)
	wantStatus(t, r, http.StatusUnprocessableEntity)
	wantBody(t, r, "the payload has no issue.title")
	r = e.deliver(t, h, hookSecret, "d-2", "issues", strings.Replace(labeledDelivery, `"name":"bonsai","color"`, `"name":"bug","color"`, 1))
	wantStatus(t, r, http.StatusOK)
	wantBody(t, r, `"outcome": "ignored"`, `label.name is not \"bonsai\"`)
	r = e.deliver(t, h, hookSecret, "d-3", "ping", `{"zen":"Keep it logically awesome.","hook_id":1}`)
	wantStatus(t, r, http.StatusOK)
	wantBody(t, r, `"outcome": "ignored"`)
	req, _ := http.NewRequest(http.MethodPost, e.ts.URL+"/hooks/github", strings.NewReader("not json"))
	req.Header = hook.Headers(h, hookSecret, "d-4", "issues", []byte("not json"), time.Now())
	r = send(t, anon(), req)
	wantStatus(t, r, http.StatusBadRequest)
	wantBody(t, r, "not JSON")
	if n := len(e.tickets(t)); n != 0 {
		t.Fatalf("%d tickets, want none", n)
	}
	ds := e.deliveries(t, "github")
	if len(ds) != 4 || ds[3].Outcome != board.DeliveryRefused || !strings.Contains(ds[3].Detail, "issue.title") {
		t.Fatalf("delivery log %+v", ds)
	}
}

// blockingBody gives the server size bytes at once and then waits for
// release before it ends: a server that read the whole body before
// answering would never answer.
type blockingBody struct {
	size    int
	sent    int
	release chan struct{}
}

func (b *blockingBody) Read(p []byte) (int, error) {
	if b.sent >= b.size {
		<-b.release
		return 0, io.EOF
	}
	n := min(len(p), b.size-b.sent)
	for i := range p[:n] {
		p[i] = 'x'
	}
	b.sent += n
	return n, nil
}

// TestHooks_TenMegabytesRefusedUnread: a 10 MB delivery is answered 413
// while the sender has sent 2 MiB of it: the server does not wait for the
// rest, with a Content-Length or chunked.
func TestHooks_TenMegabytesRefusedUnread(t *testing.T) {
	t.Parallel()
	e := hookEnv(t)
	h := e.addHook(t, ticketHook("github", board.HookGitHub))
	for _, chunked := range []bool{false, true} {
		body := &blockingBody{size: 2 << 20, release: make(chan struct{})}
		req, _ := http.NewRequest(http.MethodPost, e.ts.URL+"/hooks/github", body)
		req.Header = hook.Headers(h, hookSecret, fmt.Sprint("big-", chunked), "issues", nil, time.Now())
		if !chunked {
			req.ContentLength = 10 << 20
		}
		r := send(t, anon(), req)
		close(body.release)
		wantStatus(t, r, http.StatusRequestEntityTooLarge)
		wantBody(t, r, `"code": "too_large"`, "larger than 1 MiB")
	}
	ds := e.waitDeliveries(t, "github", 2)
	if len(ds) != 2 || ds[0].Status != http.StatusRequestEntityTooLarge || ds[1].Status != http.StatusRequestEntityTooLarge ||
		ds[0].Size != 10<<20 && ds[1].Size != 10<<20 {
		t.Fatalf("delivery log %+v", ds)
	}
	// 1 MiB exactly is read.
	pad := strings.Repeat(" ", MaxHookBody-len(labeledDelivery))
	wantStatus(t, e.deliver(t, h, hookSecret, "max", "issues", labeledDelivery+pad), http.StatusCreated)
}

// TestHooks_ActionsThroughTheWiring: sync, schedule and run call what
// the server was given, with the project and target the hook names, and
// log what they said.
func TestHooks_ActionsThroughTheWiring(t *testing.T) {
	t.Parallel()
	e := hookEnv(t)
	calls := make(chan string, 10)
	e.srv.opts.SyncTracker = func(ctx context.Context, project string) (string, error) {
		calls <- "sync " + project
		return "1 new ticket", nil
	}
	e.srv.opts.FireSchedule = func(ctx context.Context, project, name string) (string, error) {
		calls <- "fire " + project + " " + name
		return "fired", nil
	}
	e.srv.opts.RunNow = func(ctx context.Context, ref board.Ref) (string, error) {
		calls <- "run " + ref.String()
		return "started", nil
	}
	_, err := e.db.CreateProject(context.Background(), board.Project{Slug: "tracked", Name: "Tracked", Repo: t.TempDir(),
		DefaultBranch: "main", Active: true, Agent: board.AgentSettings{Tracker: board.TrackerGitLab, TrackerLabels: []string{"bonsai"}}})
	if err != nil {
		t.Fatal(err)
	}
	noTracker := e.addHook(t, board.Hook{Name: "no-tracker", Scheme: board.HookGitLab, Action: board.HookSync})
	r := e.deliver(t, noTracker, hookSecret, "s-0", "Issue Hook", `{"object_kind":"issue"}`)
	wantStatus(t, r, http.StatusUnprocessableEntity)
	wantBody(t, r, "project demo has no tracker")
	sync := e.addHook(t, board.Hook{Name: "sync", ProjectSlug: "tracked", Scheme: board.HookGitLab, Action: board.HookSync})
	wantStatus(t, e.deliver(t, sync, hookSecret, "s-1", "Issue Hook", `{"object_kind":"issue","object_attributes":{"action":"open"}}`),
		http.StatusAccepted)
	if got := <-calls; got != "sync tracked" {
		t.Fatalf("call %q", got)
	}
	fire := e.addHook(t, board.Hook{Name: "fire", Scheme: board.HookGitea, Action: board.HookSchedule, Target: "nightly"})
	wantStatus(t, e.deliver(t, fire, hookSecret, "f-1", "push", `{"ref":"refs/heads/main"}`), http.StatusOK)
	if got := <-calls; got != "fire demo nightly" {
		t.Fatalf("call %q", got)
	}
	run := e.addHook(t, board.Hook{Name: "run", Scheme: board.HookHMAC, Action: board.HookRun, Target: "{{ticket}}"})
	wantStatus(t, e.deliver(t, run, hookSecret, "r-1", "", `{"ticket":"#7"}`), http.StatusOK)
	if got := <-calls; got != "run demo#7" {
		t.Fatalf("call %q", got)
	}
	r = e.deliver(t, run, hookSecret, "r-2", "", `{"ticket":"seven"}`)
	wantStatus(t, r, http.StatusUnprocessableEntity)
	wantBody(t, r, "is not a ticket number")
	for {
		if ds := e.deliveries(t, "sync"); ds[0].Outcome == board.DeliveryDone {
			if ds[0].Detail != "1 new ticket" || ds[0].Event != "issue.open" {
				t.Fatalf("sync delivery %+v", ds[0])
			}
			break
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// TestHookAttacks_NothingTellsAHookExists: without the secret, an
// unknown hook, a wrong signature and no signature get the same answer,
// byte for byte; the secret is in no answer, log or delivery record.
func TestHookAttacks_NothingTellsAHookExists(t *testing.T) {
	t.Parallel()
	e := hookEnv(t)
	h := e.addHook(t, ticketHook("github", board.HookGitHub))
	bodies := map[string]string{}
	for name, r := range map[string]response{
		"unknown hook":    e.deliver(t, board.Hook{Name: "nope", Scheme: board.HookGitHub}, hookSecret, "d", "issues", labeledDelivery),
		"bad name":        e.deliver(t, board.Hook{Name: "NOPE~", Scheme: board.HookGitHub}, hookSecret, "d", "issues", labeledDelivery),
		"wrong signature": e.deliver(t, h, "guess", "d", "issues", labeledDelivery),
		"gitlab token":    e.deliver(t, board.Hook{Name: "github", Scheme: board.HookGitLab}, hookSecret, "d", "issues", labeledDelivery),
	} {
		wantStatus(t, r, http.StatusUnauthorized)
		bodies[r.body] = name
		if strings.Contains(r.body, hookSecret) || r.header.Get("Set-Cookie") != "" {
			t.Fatalf("%s: answer %q", name, r.body)
		}
	}
	if len(bodies) != 1 {
		t.Fatalf("the answers differ: %v", bodies)
	}
	for _, d := range e.waitDeliveries(t, "github", 2) {
		if strings.Contains(d.Detail, hookSecret) {
			t.Fatalf("the delivery log holds the secret: %+v", d)
		}
	}
	raw, err := e.db.Hook(context.Background(), "github")
	if err != nil || strings.Contains(raw.Secret, hookSecret) || !credentials.IsSealed(raw.Secret) {
		t.Fatalf("the board holds the secret as %q", raw.Secret)
	}
	if b, _ := os.ReadFile(e.dir.DB()); strings.Contains(string(b), hookSecret) {
		t.Fatal("bonsai.db holds the secret in the clear")
	}
}

// TestHookAttacks_TheHookRouteOpensNothingElse: the hook route needs no
// token but gives none; a path below it, another method and the hooks
// page need the token; a foreign Host is refused as for every route.
func TestHookAttacks_TheHookRouteOpensNothingElse(t *testing.T) {
	t.Parallel()
	e := hookEnv(t)
	h := e.addHook(t, ticketHook("github", board.HookGitHub))
	for _, rt := range []struct{ method, path string }{
		{"POST", "/hooks/github/x"}, {"GET", "/settings/hooks"}, {"POST", "/settings/hooks"},
		{"POST", "/settings/hooks/github/remove"}, {"GET", "/api/hooks"},
	} {
		req, _ := http.NewRequest(rt.method, e.ts.URL+rt.path, strings.NewReader(labeledDelivery))
		req.Header = hook.Headers(h, hookSecret, "d", "issues", []byte(labeledDelivery), time.Now())
		wantStatus(t, send(t, anon(), req), http.StatusUnauthorized)
	}
	c := e.browser(t) // a logged-in browser without the CSRF token changes nothing
	for _, path := range []string{"/settings/hooks", "/settings/hooks/github/remove"} {
		req, _ := http.NewRequest(http.MethodPost, e.ts.URL+path, strings.NewReader("name=x&project=demo&scheme=github&action=sync"))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		wantStatus(t, send(t, c, req), http.StatusForbidden)
	}
	if hs, _ := e.db.HookList(context.Background()); len(hs) != 1 {
		t.Fatalf("hooks after forged forms: %+v", hs)
	}
	for _, m := range []string{"GET", "PUT", "DELETE"} {
		req, _ := http.NewRequest(m, e.ts.URL+"/hooks/github", nil)
		r := send(t, anon(), req)
		if r.status != http.StatusUnauthorized || strings.Contains(r.body, "csrf-token") {
			t.Fatalf("%s a hook: %d %q", m, r.status, r.body)
		}
	}
	req, _ := http.NewRequest(http.MethodPost, e.ts.URL+"/hooks/github", strings.NewReader(labeledDelivery))
	req.Header = hook.Headers(h, hookSecret, "d-host", "issues", []byte(labeledDelivery), time.Now())
	req.Host = "evil.example"
	wantStatus(t, send(t, anon(), req), http.StatusMisdirectedRequest)
	r := e.deliver(t, h, hookSecret, "d-ok", "issues", labeledDelivery)
	wantStatus(t, r, http.StatusCreated)
	if r.header.Get("Set-Cookie") != "" {
		t.Fatal("a delivery got a session")
	}
	var ans map[string]any
	if err := json.Unmarshal([]byte(r.body), &ans); err != nil || ans["ticket"] != "demo#1" {
		t.Fatalf("answer %q", r.body)
	}
}

// TestHooks_SettingsPage: a person adds a hook on the page (the secret
// shown once, sealed in the board), sees its deliveries, and removes it.
func TestHooks_SettingsPage(t *testing.T) {
	t.Parallel()
	e := hookEnv(t)
	c := e.browser(t)
	r := e.post(t, c, "/settings/hooks", map[string][]string{"name": {"Bad Name"}, "project": {"demo"}, "scheme": {"github"},
		"action": {"sync"}, "title": {"kept <b>"}})
	wantStatus(t, r, http.StatusBadRequest)
	wantBody(t, r, `hook name &#34;Bad Name&#34;`, `value="kept &lt;b&gt;"`)
	r = e.post(t, c, "/settings/hooks", map[string][]string{"name": {"gh"}, "project": {"demo"}, "scheme": {"github"},
		"action": {"ticket"}, "events": {"issues.labeled"}, "when": {"label.name=bonsai"}, "title": {"{{issue.title}}"},
		"state": {"RESEARCH"}})
	wantStatus(t, r, http.StatusOK)
	wantBody(t, r, "Added hook gh", `id="hook-secret"`)
	i := strings.Index(r.body, "Secret (shown once): <code>")
	secret := r.body[i+len("Secret (shown once): <code>") : i+len("Secret (shown once): <code>")+64]
	h, err := e.db.Hook(context.Background(), "gh")
	if err != nil || strings.Contains(h.Secret, secret) {
		t.Fatalf("stored hook %+v, %v", h, err)
	}
	wantStatus(t, e.deliver(t, h, secret, "page-1", "issues", labeledDelivery), http.StatusCreated)
	wantStatus(t, e.deliver(t, h, "wrong-secret", "page-2", "issues", labeledDelivery), http.StatusUnauthorized)
	e.waitDeliveries(t, "gh", 2)
	page := e.get(t, c, "/settings/hooks")
	wantStatus(t, page, http.StatusOK)
	wantBody(t, page, `id="hook-gh"`, "page-1", `href="/p/demo/1"`, "created demo#1", "does not match the body")
	if strings.Contains(page.body, secret) || strings.Contains(page.body, h.Secret) {
		t.Fatal("the page shows the secret again")
	}
	wantStatus(t, e.post(t, c, "/settings/hooks/gh/remove", nil), http.StatusSeeOther)
	if _, err := e.db.Hook(context.Background(), "gh"); board.ErrorCode(err) != board.ENOTFOUND {
		t.Fatalf("hook after removal: %v", err)
	}
	wantStatus(t, e.deliver(t, h, secret, "page-3", "issues", labeledDelivery), http.StatusUnauthorized)
}
