package web

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/insights"
)

// insightsBoard writes the small board of the Insights tests through the
// store: demo (model anthropic/claude-x, the built-in engine, a $1 daily
// budget) lands demo#1 after one return ($0.50 + $0.25, 300 tokens) and
// demo#2 in one shot ($1.25, 300 tokens); other (the default model,
// codex) lands other#1 in one shot ($9, 9 tokens) and other#2 fails with
// "boom".
func insightsBoard(t *testing.T, e *env) {
	t.Helper()
	ctx := context.Background()
	for _, p := range []board.Project{
		{Slug: "demo", Agent: board.AgentSettings{Model: "anthropic/claude-x", DailyBudgetUSD: 1}},
		{Slug: "other", Agent: board.AgentSettings{Engine: board.EngineCodex}},
	} {
		p.Name, p.Repo, p.DefaultBranch, p.Active = "Project "+p.Slug, t.TempDir(), "main", true
		if _, err := e.db.CreateProject(ctx, p); err != nil {
			t.Fatal(err)
		}
	}
	run := func(tk board.Ticket, status board.RunStatus, in int64, usd float64, errText string) {
		t.Helper()
		r, err := e.db.StartRun(ctx, board.Run{TicketID: tk.ID, Task: board.TaskImplement})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := e.db.FinishRun(ctx, board.Run{ID: r.ID, Status: status, Error: errText,
			Usage: board.Usage{InputTokens: in, CostUSD: usd}}); err != nil {
			t.Fatal(err)
		}
	}
	move := func(tk board.Ticket, to board.State, actor board.Actor, feedback string) {
		t.Helper()
		if _, err := e.db.MoveTicket(ctx, tk.Ref(), board.MoveRequest{To: to, Actor: actor, Feedback: feedback}, "tester"); err != nil {
			t.Fatal(err)
		}
	}
	land := func(tk board.Ticket) {
		t.Helper()
		move(tk, board.Verification, board.Agent, "")
		move(tk, board.Done, board.Human, "")
	}
	d1 := e.ticket(t, "demo", "Sent back once", board.InProgress)
	run(d1, board.RunCompleted, 100, 0.5, "")
	move(d1, board.Verification, board.Agent, "")
	move(d1, board.InProgress, board.Human, "please change it")
	run(d1, board.RunCompleted, 200, 0.25, "")
	land(d1)
	d2 := e.ticket(t, "demo", "One shot", board.InProgress)
	run(d2, board.RunCompleted, 300, 1.25, "")
	land(d2)
	o1 := e.ticket(t, "other", `The costly <script>alert(1)</script> one`, board.InProgress)
	run(o1, board.RunCompleted, 9, 9, "")
	land(o1)
	o2 := e.ticket(t, "other", "Fails", board.InProgress)
	run(o2, board.RunError, 0, 0, "boom")
}

// TestInsightsPage checks every table of the page against the
// hand-computed figures of insightsBoard.
func TestInsightsPage(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	insightsBoard(t, e)
	c := e.browser(t)
	r := e.get(t, c, "/insights")
	wantStatus(t, r, 200)
	wantBody(t, r,
		`3 tickets landed; 67% in one shot; $3.67 and 1.3 runs per landed ticket.`,
		// by model: demo's 2 tickets (one returned), other's 1
		`<th scope="row">anthropic/claude-x</th><td>2</td><td>50% (1)</td><td>0.5</td><td>1.5</td><td>300</td><td>$1.00</td><td>0.0</td>`,
		`<th scope="row">default</th><td>1</td><td>100% (1)</td><td>0.0</td><td>1.0</td><td>9</td><td>$9.00</td><td>0.0</td>`,
		`<th scope="row">all</th><td>3</td><td>67% (2)</td><td>0.3</td><td>1.3</td><td>203</td><td>$3.67</td><td>0.0</td>`,
		// by engine
		`<th scope="row">bonsai</th><td>2</td><td>50% (1)</td>`,
		`<th scope="row">codex</th><td>1</td><td>100% (1)</td>`,
		// spend today: 5 runs, $11, over demo's $1 budget
		`<td>5</td><td>$11.00</td>`, `$1.00 <strong>over: demo</strong>`,
		// the costliest first, linked
		`<th scope="row"><a href="/p/other/1">other#1</a></th><td>$9.00</td><td>1</td><td>0</td>`,
		`<td>other</td><td>error</td><td>1</td><td class="title-cell">boom</td>`,
		`newest run ran with; runs recorded before runs kept them`,
	)
	if strings.Contains(r.body, "<script>alert") || !strings.Contains(r.body, "The costly &lt;script&gt;alert(1)&lt;/script&gt; one") {
		t.Error("a ticket's title is not escaped on the page")
	}
	if n := strings.Count(r.body, `<svg class="chart"`); n != 8 {
		t.Errorf("the page draws %d charts, want 8 (spend, 3 by model, 3 by engine, costliest)", n)
	}

	p := e.get(t, c, "/p/other/insights?since=all")
	wantStatus(t, p, 200)
	wantBody(t, p, `1 tickets landed; 100% in one shot; $9.00`, `<th scope="row">codex</th><td>1</td>`,
		`<option value="all" selected>`)
	if strings.Contains(p.body, "anthropic/claude-x") {
		t.Error("other's page shows demo's model")
	}
	wantStatus(t, e.get(t, c, "/p/nope/insights"), 404)
}

// TestInsightsAPI checks GET /api/stats: the report of `bonsai stats
// --json` for the hand-computed board, its filters, and its refusals.
func TestInsightsAPI(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	insightsBoard(t, e)
	var rep insights.Report
	r := e.api(t, "GET", "/api/stats?since=all&by=engine", "")
	wantStatus(t, r, 200)
	r.json(t, &rep)
	if rep.By != "engine" || rep.Total.Landed != 3 || rep.Total.OneShot != 2 || rep.Total.CostUSD != 11 || len(rep.Groups) != 2 ||
		rep.Groups[0].Key != "bonsai" || rep.Groups[0].Returns != 1 || rep.Groups[1].Key != "codex" || rep.Groups[1].CostUSD != 9 {
		t.Errorf("GET /api/stats = %+v", rep)
	}
	r = e.api(t, "GET", "/api/stats?project=demo", "")
	wantStatus(t, r, 200)
	rep = insights.Report{}
	r.json(t, &rep)
	if rep.Project != "demo" || rep.By != "model" || rep.Total.Landed != 2 || len(rep.Endings) != 0 || rep.Since.IsZero() {
		t.Errorf("GET /api/stats?project=demo = %+v", rep)
	}
	for path, want := range map[string]int{"/api/stats?by=colour": 400, "/api/stats?since=3x": 400, "/api/stats?project=nope": 404} {
		wantStatus(t, e.api(t, "GET", path, ""), want)
	}
	res, err := anon().Get(e.ts.URL + "/api/stats")
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusUnauthorized {
		t.Errorf("GET /api/stats without the token: %d, want 401", res.StatusCode)
	}
}
