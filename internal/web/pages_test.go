package web

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/config"
	"golang.org/x/net/html"
)

// liveScript returns the first markup in page that could run a script:
// a script element without src, an event-handler attribute or a
// javascript: URL. The CSP would block them, and XSS would need them.
func liveScript(page string) string {
	z := html.NewTokenizer(strings.NewReader(page))
	for {
		switch z.Next() {
		case html.ErrorToken:
			return ""
		case html.StartTagToken, html.SelfClosingTagToken:
			tok := z.Token()
			hasSrc := false
			for _, a := range tok.Attr {
				if a.Key == "src" {
					hasSrc = true
				}
				if strings.HasPrefix(a.Key, "on") ||
					strings.HasPrefix(strings.ToLower(strings.TrimSpace(a.Val)), "javascript:") {
					return tok.String()
				}
			}
			if tok.Data == "script" && !hasSrc {
				return tok.String()
			}
		}
	}
}

func TestPages_SecurityHeaders(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.project(t, "demo")
	e.ticket(t, "demo", "t", board.Backlog)
	c := e.browser(t)
	for _, path := range []string{"/", "/p/demo", "/p/demo/1", "/p/demo/settings", "/settings", "/login", "/static/app.js", "/nope", "/api/projects"} {
		t.Run(path, func(t *testing.T) {
			r := e.get(t, c, path)
			h := r.header
			if !strings.Contains(h.Get("Content-Security-Policy"), "script-src 'self'") ||
				strings.Contains(h.Get("Content-Security-Policy"), "unsafe-inline") ||
				!strings.Contains(h.Get("Content-Security-Policy"), "frame-ancestors 'none'") {
				t.Errorf("CSP %q", h.Get("Content-Security-Policy"))
			}
			if h.Get("X-Content-Type-Options") != "nosniff" || h.Get("X-Frame-Options") != "DENY" || h.Get("Referrer-Policy") != "no-referrer" {
				t.Errorf("headers %v", h)
			}
			if strings.HasPrefix(h.Get("Content-Type"), "text/html") && liveScript(r.body) != "" {
				t.Errorf("inline script in %s: %q", path, liveScript(r.body))
			}
		})
	}
}

func TestPages_XSSIsInert(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.project(t, "demo")
	ctx := context.Background()
	payload := `<script>alert(1)</script><img src=x onerror=alert(2)>`
	tk, err := e.db.CreateTicket(ctx, board.Ticket{ProjectSlug: "demo", Title: "T " + payload, State: board.InProgress,
		Priority: 2, Description: "desc " + payload + "\n\n[click](javascript:alert(3))",
		Criteria: []string{"crit " + payload}}, board.Human)
	if err != nil {
		t.Fatal(err)
	}
	plan := "plan " + payload
	if _, err := e.db.UpdateTicket(ctx, tk.Ref(), planUpdate(&plan), board.Agent); err != nil {
		t.Fatal(err)
	}
	for _, who := range []board.Actor{board.Agent, board.Human} {
		if _, err := e.db.AddComment(ctx, tk.Ref(), board.Comment{AuthorType: who, AuthorName: payload,
			Kind: board.KindStatus, Content: "said " + payload}); err != nil {
			t.Fatal(err)
		}
	}
	c := e.browser(t)
	for _, path := range []string{"/p/demo", "/p/demo/1", "/p/demo/1/live", "/settings", "/"} {
		r := e.get(t, c, path)
		wantStatus(t, r, 200)
		if live := liveScript(r.body); live != "" {
			t.Errorf("%s renders live markup: %q", path, live)
		}
		if strings.Contains(r.body, "<img src=x") || strings.Contains(r.body, "<script>alert") {
			t.Errorf("%s renders the payload as HTML", path)
		}
	}
	r := e.get(t, c, "/p/demo/1")
	wantBody(t, r, "T &lt;script&gt;alert(1)&lt;/script&gt;", "said ", "plan ", "crit &lt;script&gt;")
}

func TestPages_Projects(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	c := e.browser(t)
	r := e.get(t, c, "/")
	wantStatus(t, r, 200)
	wantBody(t, r, "No projects yet")

	// Errors are shown next to the field, with what was typed kept.
	r = e.post(t, c, "/projects", url.Values{"slug": {"Bad Slug"}, "repo": {t.TempDir()}, "name": {"Kept name"}})
	wantStatus(t, r, http.StatusBadRequest)
	wantBody(t, r, `value="Kept name"`, `class="field-error">project slug &#34;Bad Slug&#34; has`)
	r = e.post(t, c, "/projects", url.Values{"slug": {"web"}, "repo": {"/no/such/dir"}})
	wantStatus(t, r, http.StatusBadRequest)
	wantBody(t, r, "is not a directory")
	r = e.post(t, c, "/projects", url.Values{"slug": {"web"}, "repo": {t.TempDir()}, "budget": {"lots"}})
	wantStatus(t, r, http.StatusBadRequest)
	wantBody(t, r, "budget must be a number")

	r = e.post(t, c, "/projects", url.Values{"slug": {"web"}, "repo": {"https://example.com/web.git"}, "budget": {"2.5"}})
	wantStatus(t, r, http.StatusSeeOther)
	if r.header.Get("Location") != "/p/web" {
		t.Fatalf("Location %q", r.header.Get("Location"))
	}
	tk := e.ticket(t, "web", "q", board.InProgress)
	e.db.AddComment(context.Background(), tk.Ref(), board.Comment{AuthorType: board.Agent, AuthorName: "agent", Kind: board.KindQuestion, Content: "?"})
	r = e.get(t, c, "/")
	wantBody(t, r, `href="/p/web"`, "1 waiting on you", "spent today $0.00")
}

func TestPages_Board(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.project(t, "demo")
	e.ticket(t, "demo", "Backlog item", board.Backlog)
	b := e.ticket(t, "demo", "Blocked item", board.InProgress)
	e.db.AddComment(context.Background(), b.Ref(), board.Comment{AuthorType: board.Agent, AuthorName: "agent", Kind: board.KindQuestion, Content: "?"})
	c := e.browser(t)
	r := e.get(t, c, "/p/demo")
	wantStatus(t, r, 200)
	for _, st := range board.States {
		wantBody(t, r, `class="cards" data-state="`+string(st)+`"`)
	}
	wantBody(t, r, "#1", "Backlog item", "blocked — waiting on you", `sse-connect="/p/demo/events?after=`)

	r = e.get(t, c, "/p/demo?q=blocked")
	if strings.Contains(r.body, "Backlog item") || !strings.Contains(r.body, "Blocked item") {
		t.Error("the filter did not filter")
	}
	wantStatus(t, e.get(t, c, "/p/nope"), 404)

	// Quick add: htmx gets the card, a plain form goes back to the board.
	req, _ := http.NewRequest("POST", e.ts.URL+"/p/demo/tickets", strings.NewReader("title=Quick+one&priority=1"))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("HX-Request", "true")
	req.Header.Set(csrfHeader, e.srv.auth.csrf)
	r = send(t, c, req)
	wantStatus(t, r, http.StatusCreated)
	wantBody(t, r, `class="card"`, "#3", "Quick one", `data-state="BACKLOG"`)
	r = e.post(t, c, "/p/demo/tickets", url.Values{"title": {"Form one"}})
	wantStatus(t, r, http.StatusSeeOther)
	req, _ = http.NewRequest("POST", e.ts.URL+"/p/demo/tickets", strings.NewReader("title="))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("HX-Request", "true")
	req.Header.Set(csrfHeader, e.srv.auth.csrf)
	r = send(t, c, req)
	wantStatus(t, r, 400)
	if strings.TrimSpace(r.body) != "title is empty" {
		t.Errorf("htmx error body %q, want the bare message", r.body)
	}
}

func TestPages_BoardLimitsColumns(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.project(t, "demo")
	for i := 0; i < columnLimit+5; i++ {
		e.ticket(t, "demo", "many", board.Backlog)
	}
	r := e.get(t, e.browser(t), "/p/demo")
	if n := strings.Count(r.body, `class="card"`); n != columnLimit {
		t.Errorf("%d cards shown, want %d", n, columnLimit)
	}
	wantBody(t, r, "5 more not shown", fmt.Sprintf(`data-total="%d"`, columnLimit+5))
}

func TestPages_Ticket(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.project(t, "demo")
	tk := e.ticket(t, "demo", "Blocked", board.InProgress)
	ctx := context.Background()
	e.db.AddComment(ctx, tk.Ref(), board.Comment{AuthorType: board.Agent, AuthorName: "agent", Kind: board.KindQuestion, Content: "Which **version**?"})
	c := e.browser(t)
	r := e.get(t, c, "/p/demo/1")
	wantStatus(t, r, 200)
	wantBody(t, r, "The agent is waiting for your answer", "Which <strong>version</strong>?", `class="comment kind-question author-agent"`,
		`hx-trigger="sse:ticket"`, `<option value="BACKLOG">`, `<option value="RESEARCH">`)
	if strings.Contains(r.body, `<option value="VERIFICATION">`) {
		t.Error("people are offered the move to VERIFICATION")
	}

	// An empty reply is refused next to the box; a real one unblocks.
	r = e.post(t, c, "/p/demo/1/comments", url.Values{"content": {"  "}})
	wantStatus(t, r, 400)
	wantBody(t, r, "comment is empty")
	r = e.post(t, c, "/p/demo/1/comments", url.Values{"content": {"Version 2"}})
	wantStatus(t, r, http.StatusSeeOther)
	if !strings.HasPrefix(r.header.Get("Location"), "/p/demo/1#c-") {
		t.Errorf("Location %q", r.header.Get("Location"))
	}
	got, _ := e.db.Ticket(ctx, tk.Ref())
	if got.SubState != board.SubNone {
		t.Fatalf("sub-state %q after the reply", got.SubState)
	}

	// A refused move shows the rule on the page.
	r = e.post(t, c, "/p/demo/1/move", url.Values{"state": {"DONE"}})
	wantStatus(t, r, http.StatusUnprocessableEntity)
	wantBody(t, r, "IN_PROGRESS → DONE is not allowed")
	r = e.post(t, c, "/p/demo/1/move", url.Values{"state": {"BACKLOG"}})
	wantStatus(t, r, http.StatusSeeOther)

	wantStatus(t, e.get(t, c, "/p/demo/9"), 404)
	wantStatus(t, e.get(t, c, "/p/demo/nine"), 404)
	r = e.get(t, c, "/p/demo/1/live")
	wantStatus(t, r, 200)
	if strings.Contains(r.body, "<html") {
		t.Error("the live fragment is a whole page")
	}
}

// TestPages_ApprovePlan: a researched ticket with a plan offers "Approve
// the plan", which moves it to IN_PROGRESS; without a plan, or in another
// state, there is no such button.
func TestPages_ApprovePlan(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	p := e.project(t, "demo")
	mode := board.ModePlan
	if _, err := e.db.UpdateProject(context.Background(), p.Slug, board.ProjectPatch{PermissionMode: &mode}); err != nil {
		t.Fatal(err)
	}
	tk := e.ticket(t, "demo", "Risky", board.Research)
	c := e.browser(t)
	if strings.Contains(e.get(t, c, "/p/demo/1").body, `id="approve-plan"`) {
		t.Error("a ticket without a plan offers to approve it")
	}
	plan := "1. Change the schema."
	if _, err := e.db.UpdateTicket(context.Background(), tk.Ref(), board.TicketPatch{Plan: &plan}, board.Agent); err != nil {
		t.Fatal(err)
	}
	r := e.get(t, c, "/p/demo/1")
	wantBody(t, r, `id="approve-plan"`, `name="state" value="IN_PROGRESS"`)
	wantStatus(t, e.post(t, c, "/p/demo/1/move", url.Values{"state": {"IN_PROGRESS"}}), http.StatusSeeOther)
	if got, _ := e.db.Ticket(context.Background(), tk.Ref()); got.State != board.InProgress {
		t.Fatalf("after approving: %s", got.State)
	}
	if strings.Contains(e.get(t, c, "/p/demo/1").body, `id="approve-plan"`) {
		t.Error("an IN_PROGRESS ticket offers to approve its plan")
	}
}

func TestPages_Review(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.project(t, "demo")
	a := e.ticket(t, "demo", "a", board.InProgress)
	b := e.ticket(t, "demo", "b", board.InProgress)
	e.toVerification(t, a.Ref())
	e.toVerification(t, b.Ref())
	c := e.browser(t)
	r := e.get(t, c, "/p/demo/1")
	wantBody(t, r, `id="approve"`, `id="request-changes"`)

	r = e.post(t, c, "/p/demo/2/return", url.Values{"feedback": {""}})
	wantStatus(t, r, 400)
	wantBody(t, r, "feedback is required")
	r = e.post(t, c, "/p/demo/2/return", url.Values{"feedback": {"Add a test"}})
	wantStatus(t, r, http.StatusSeeOther)
	r = e.post(t, c, "/p/demo/1/approve", url.Values{"comment": {"ship it"}})
	wantStatus(t, r, http.StatusSeeOther)
	ctx := context.Background()
	ta, _ := e.db.Ticket(ctx, a.Ref())
	tb, _ := e.db.Ticket(ctx, b.Ref())
	if ta.State != board.Done || tb.State != board.InProgress || tb.SubState != board.SubReturned {
		t.Fatalf("after review: a %s, b %s/%s", ta.State, tb.State, tb.SubState)
	}
}

func TestPages_EditKeepsTextOnConflict(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.project(t, "demo")
	tk := e.ticket(t, "demo", "Original", board.Backlog)
	c := e.browser(t)
	form := url.Values{"title": {"My title"}, "description": {"My long careful description"}, "criteria": {"one\r\ntwo\r\n"},
		"priority": {"1"}, "updated_at": {itoa64(tk.UpdatedAt.UnixMilli() - 1)}}
	r := e.post(t, c, "/p/demo/1/edit", form)
	wantStatus(t, r, http.StatusConflict)
	wantBody(t, r, "changed since you opened it", "My long careful description", `value="My title"`, "<details class=\"edit\" id=\"edit\" open>")

	form.Set("updated_at", itoa64(tk.UpdatedAt.UnixMilli()))
	r = e.post(t, c, "/p/demo/1/edit", form)
	wantStatus(t, r, http.StatusSeeOther)
	got, _ := e.db.Ticket(context.Background(), tk.Ref())
	if got.Title != "My title" || len(got.Criteria) != 2 || got.Priority != 1 {
		t.Fatalf("after edit %+v", got)
	}
	form.Set("title", "")
	form.Set("updated_at", itoa64(got.UpdatedAt.UnixMilli()))
	r = e.post(t, c, "/p/demo/1/edit", form)
	wantStatus(t, r, 400)
	wantBody(t, r, "title is empty")
}

func TestPages_Settings(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	c := e.browser(t)
	e.db.CreateProject(context.Background(), board.Project{Slug: "capped", Name: "c", Repo: "https://example.com/c.git",
		DefaultBranch: "main", Active: true, Agent: board.AgentSettings{Model: "openai/gpt-5", BudgetUSD: 2.5, TakeBacklog: true, PermissionMode: board.ModePlan}})
	e.project(t, "plain")
	r := e.get(t, c, "/settings")
	wantBody(t, r, "<td>openai/gpt-5</td><td>$2.50</td>", "anthropic/claude-sonnet-4-5 (default)", "no cap",
		"<td>agents take it</td><td>plan</td>", `<span class="muted">people</span></td><td>auto</td>`)
	wantStatus(t, r, 200)
	wantBody(t, r, "ANTHROPIC_API_KEY</code> <span class=\"badge ok\">set", "OPENAI_API_KEY</code> <span class=\"muted\">not set",
		`name="heartbeat.intervalSec" value="60"`, "bonsai service install")
	if strings.Contains(r.body, "sk-secret-value") {
		t.Fatal("the settings page shows a key's value")
	}

	wantBody(t, r, "Last beat</dt><dd>none yet")
	beat := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	e.srv.opts.LastBeat = func() (time.Time, time.Duration, bool) { return beat, 1500 * time.Millisecond, true }
	wantBody(t, e.get(t, c, "/settings"), "took 1.5s", `<time datetime="2026-01-02T03:05:05Z">`)

	r = e.post(t, c, "/settings", url.Values{"heartbeat.intervalSec": {"5"}, "model": {"openai/gpt-5"}})
	wantStatus(t, r, 400)
	wantBody(t, r, "must be a whole number from 10 to 86400, got 5", `value="5"`)
	cfg, err := config.Load(e.dir.ConfigFile())
	if err != nil || cfg.Model != config.DefaultModel {
		t.Fatalf("an invalid form changed config.json: %+v %v", cfg, err)
	}

	r = e.post(t, c, "/settings", url.Values{"heartbeat.intervalSec": {"120"}, "model": {"openai/gpt-5"}})
	wantStatus(t, r, http.StatusSeeOther)
	cfg, _ = config.Load(e.dir.ConfigFile())
	if cfg.Heartbeat.IntervalSec != 120 || cfg.Model != "openai/gpt-5" {
		t.Fatalf("config after save %+v", cfg)
	}
	wantBody(t, e.get(t, c, "/settings?saved=1"), "Saved to config.json")

	os.WriteFile(e.dir.ConfigFile(), []byte("{broken"), 0o644)
	r = e.post(t, c, "/settings", url.Values{"model": {"openai/gpt-5"}})
	wantStatus(t, r, http.StatusConflict)
	b, _ := os.ReadFile(e.dir.ConfigFile())
	if string(b) != "{broken" {
		t.Fatal("a broken config.json was overwritten")
	}
}

func TestPages_RunAndErrors(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.project(t, "demo")
	tk := e.ticket(t, "demo", "t", board.Research)
	ctx := context.Background()
	run, _ := e.db.StartRun(ctx, board.Run{TicketID: tk.ID, Task: board.TaskResearch})
	run.Status, run.Error = board.RunError, "model <b>overloaded</b>"
	run.InputTokens, run.OutputTokens, run.ReasoningTokens = 1200, 340, 200
	e.db.FinishRun(ctx, run)
	e.srv.Catchup(ctx)
	c := e.browser(t)
	r := e.get(t, c, "/runs/"+run.ID)
	wantStatus(t, r, 200)
	wantBody(t, r, "research run on demo#1", "model &lt;b&gt;overloaded&lt;/b&gt;", "transcript.jsonl")
	r = e.get(t, c, "/p/demo/1")
	wantBody(t, r, `href="/runs/`+run.ID+`"`, `run-status error`, `1200/340 <span class="muted" title="output tokens spent thinking">(200 thinking)</span>`)
	r = e.get(t, c, "/runs/nope")
	wantStatus(t, r, 404)
	wantBody(t, r, "run &#34;nope&#34; not found")
	r = e.get(t, c, "/no/such/page")
	wantStatus(t, r, 404)
	wantBody(t, r, "there is no page at /no/such/page")
}

func TestLiveScript_Detects(t *testing.T) {
	t.Parallel()
	for _, page := range []string{`<script>x()</script>`, `<img src=x onerror=alert(1)>`, `<a href=" javascript:alert(1)">`} {
		if liveScript(page) == "" {
			t.Errorf("liveScript(%q) found nothing", page)
		}
	}
	if got := liveScript(`<script src="/static/app.js"></script><p>&lt;script&gt; onerror=</p>`); got != "" {
		t.Errorf("liveScript flagged inert markup: %q", got)
	}
}

func TestPages_BoardSeesOtherWritersAtOnce(t *testing.T) {
	t.Parallel()
	e := newEnvPoll(t, time.Hour) // the loop never polls: the page must
	e.project(t, "demo")
	tk := e.ticket(t, "demo", "Moving", board.Backlog)
	c := e.browser(t)
	wantBody(t, e.get(t, c, "/p/demo"), `data-state="BACKLOG" data-updated`)
	w := otherWriter(t, e)
	if _, err := w.MoveTicket(context.Background(), tk.Ref(), board.MoveRequest{To: board.Research, Actor: board.Human}, "x"); err != nil {
		t.Fatal(err)
	}
	w.CreateTicket(context.Background(), board.Ticket{ProjectSlug: "demo", Title: "Brand new", Priority: 2, State: board.Backlog}, board.Human)
	r := e.get(t, c, "/p/demo")
	wantBody(t, r, `data-state="RESEARCH" data-updated`, "Brand new")
	if strings.Contains(r.body, `data-state="BACKLOG" data-updated="`+itoa64(tk.UpdatedAt.UnixMilli())) {
		t.Error("the board shows the old card")
	}
}

// TestPages_SubCentCostsShow checks that a ticket that spent less than a
// cent shows what it spent, on its card, its page and the projects page,
// not "$0.00".
func TestPages_SubCentCostsShow(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	c := e.browser(t)
	e.project(t, "demo")
	tk := e.ticket(t, "demo", "t", board.Research)
	ctx := context.Background()
	run, err := e.db.StartRun(ctx, board.Run{TicketID: tk.ID, Task: board.TaskResearch, WorkerID: "w1"})
	if err != nil {
		t.Fatal(err)
	}
	run.Status, run.CostUSD, run.InputTokens = board.RunCompleted, 0.0045, 783
	if _, err := e.db.FinishRun(ctx, run); err != nil {
		t.Fatal(err)
	}
	if err := e.srv.Catchup(ctx); err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{"/p/demo", "/p/demo/1", "/"} {
		r := e.get(t, c, path)
		wantBody(t, r, "$0.0045")
		if strings.Contains(r.body, "$0.00<") || strings.Contains(r.body, "$0.00 ") {
			t.Errorf("%s shows $0.00 for a ticket that spent $0.0045", path)
		}
	}
}
