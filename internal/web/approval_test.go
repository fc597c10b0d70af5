package web

import (
	"context"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/bonsai-run/bonsai/internal/board"
)

// request posts an approval request on ref, as the heartbeat does.
func (e *env) request(t testing.TB, ref board.Ref, command, pattern string) board.Approval {
	t.Helper()
	a, err := e.db.RequestApproval(context.Background(), ref, board.Approval{Command: command, Rule: "ask-mode",
		Reason: "in ask mode this command needs approval", Pattern: pattern}, "bonsai")
	if err != nil {
		t.Fatal(err)
	}
	return a
}

func TestPages_Approval(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.project(t, "demo")
	tk := e.ticket(t, "demo", "Touch", board.InProgress)
	a := e.request(t, tk.Ref(), "touch approved.txt", "touch approved.txt")
	b := e.request(t, tk.Ref(), "echo '<script>alert(1)</script>' | tee x", "")
	c := e.browser(t)
	r := e.get(t, c, "/p/demo/1")
	wantStatus(t, r, 200)
	wantBody(t, r, `id="approvals"`, "<pre><code>touch approved.txt</code></pre>", "in ask mode this command needs approval",
		`action="/p/demo/1/approvals/`+a.ID+`"`, `id="allow-once-`+a.ID+`"`, `id="allow-always-`+a.ID+`"`, `id="deny-`+a.ID+`"`,
		"Always allow adds <code>touch approved.txt</code> to the project's allow list.",
		"&lt;script&gt;alert(1)&lt;/script&gt;", "Always allow lets this exact command run on every ticket")
	if strings.Contains(r.body, "<script>alert(1)") {
		t.Fatal("the command is not escaped")
	}
	if strings.Contains(r.body, `class="question-banner"`) {
		t.Error("a permission request shows as a question")
	}

	// A bad decision keeps the note and says why.
	r = e.post(t, c, "/p/demo/1/approvals/"+a.ID, url.Values{"decision": {"maybe"}, "note": {"hmm"}})
	wantStatus(t, r, http.StatusBadRequest)
	wantBody(t, r, `id="approval-error"`, "use once (allow once), always", ">hmm</textarea>")
	r = e.post(t, c, "/p/demo/1/approvals/"+a.ID, url.Values{"decision": {"once"}, "note": {"bad \x1b[2J"}})
	wantStatus(t, r, http.StatusBadRequest)
	wantBody(t, r, "control character")

	r = e.post(t, c, "/p/demo/1/approvals/"+a.ID, url.Values{"decision": {"always"}, "note": {"fine\r\nreally"}})
	wantStatus(t, r, http.StatusSeeOther)
	ctx := context.Background()
	p, _ := e.db.Project(ctx, "demo")
	if !slices.Contains(p.Agent.Allow, "touch approved.txt") {
		t.Errorf("Allow list = %q, want the always-allowed command", p.Agent.Allow)
	}
	r = e.get(t, c, "/p/demo/1")
	wantBody(t, r, "Allowed for every ticket of this project (added to its allow list)", "fine\nreally", "kind-permission")
	if strings.Contains(r.body, `id="allow-once-`+a.ID+`"`) {
		t.Error("a decided approval still offers its buttons")
	}

	// Deciding again is a conflict shown on the page.
	r = e.post(t, c, "/p/demo/1/approvals/"+a.ID, url.Values{"decision": {"deny"}})
	wantStatus(t, r, http.StatusConflict)
	wantBody(t, r, "was already allowed")
	r = e.post(t, c, "/p/demo/1/approvals/nope", url.Values{"decision": {"deny"}})
	wantStatus(t, r, http.StatusNotFound)

	r = e.post(t, c, "/p/demo/1/approvals/"+b.ID, url.Values{"decision": {"deny"}, "note": {"no tee"}})
	wantStatus(t, r, http.StatusSeeOther)
	got, _ := e.db.Ticket(ctx, tk.Ref())
	as, _ := e.db.Approvals(ctx, tk.Ref())
	if got.SubState != board.SubNone || as[1].Status != board.ApprovalDenied || as[1].Note != "no tee" {
		t.Errorf("after the denial: sub-state %q, approval %+v", got.SubState, as[1])
	}
	if r := e.get(t, c, "/p/demo/1"); strings.Contains(r.body, `id="approvals"`) {
		t.Error("the page still shows approvals waiting")
	}
}

// TestPages_ApprovalBidi: a held command with a right-to-left override,
// which a browser would show reordered, shows it as an escape, so the
// command approved reads as it runs (issue 25, finding 6).
func TestPages_ApprovalBidi(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.project(t, "demo")
	tk := e.ticket(t, "demo", "Touch", board.InProgress)
	e.request(t, tk.Ref(), "touch \u202etxt.exe\u2066", "")
	r := e.get(t, e.browser(t), "/p/demo/1")
	wantStatus(t, r, 200)
	wantBody(t, r, `<pre><code>touch \u202etxt.exe\u2066</code></pre>`)
	if strings.ContainsAny(r.body, "\u202e\u2066") {
		i := strings.IndexAny(r.body, "\u202e\u2066")
		t.Errorf("the page carries a raw bidi override: …%s", r.body[max(0, i-300):i])
	}
}

func TestAPI_Approval(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.project(t, "demo")
	tk := e.ticket(t, "demo", "Touch", board.InProgress)
	a := e.request(t, tk.Ref(), "make deploy", "make deploy")
	r := e.api(t, "GET", "/api/projects/demo/tickets/1", "")
	wantBody(t, r, `"approvals": [`, `"command": "make deploy"`, `"status": "pending"`, `"kind": "permission"`, `"subState": "blocked"`)

	r = e.api(t, "POST", "/api/projects/demo/tickets/1/approvals/"+a.ID, `{"note":"x"}`)
	wantStatus(t, r, http.StatusBadRequest)
	wantBody(t, r, `"code": "invalid"`, "use once")
	r = e.api(t, "POST", "/api/projects/demo/tickets/1/approvals/nope", `{"decision":"deny"}`)
	wantStatus(t, r, http.StatusNotFound)
	r = e.api(t, "POST", "/api/projects/demo/tickets/1/approvals/"+a.ID, `{"decision":"once","note":"just this once"}`)
	wantStatus(t, r, http.StatusOK)
	var got board.Approval
	r.json(t, &got)
	if got.ID != a.ID || got.Status != board.ApprovalAllowed || got.Always || got.Note != "just this once" || got.DecidedBy == "" {
		t.Errorf("decided approval = %+v", got)
	}
	r = e.api(t, "POST", "/api/projects/demo/tickets/1/approvals/"+a.ID, `{"decision":"deny"}`)
	wantStatus(t, r, http.StatusConflict)
	wantBody(t, r, `"code": "conflict"`, "already allowed")
}
