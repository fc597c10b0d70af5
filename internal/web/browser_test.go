package web

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/browsertest"
	"github.com/bonsai-run/bonsai/internal/llm"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
)

// newBrowser returns a tab of its own for t on the test process's one
// headless Chromium (browsertest), with a browser context of its own: its
// cookies and storage are t's alone, so browser tests run in parallel.
// Without Chromium the test fails in CI (CI is set) and is skipped
// elsewhere.
func newBrowser(t *testing.T) context.Context {
	t.Helper()
	return browsertest.New(t)
}

// steps runs browser actions with a time limit.
func steps(t *testing.T, ctx context.Context, what string, actions ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	c, cancel := context.WithTimeout(ctx, 15*time.Second)
	defer cancel()
	if err := chromedp.Do(c, actions...); err != nil {
		t.Fatalf("%s: %v", what, err)
	}
}

// click clicks the element sel selects once it is shown and enabled, in
// the page's own script. chromedp.Click sends mouse events to where the
// node was when it was found, so a live update that swaps the node in
// between makes the click land on nothing; a script click on the node the
// selector finds at that moment cannot miss.
func click(sel string) chromedp.Action[chromedp.Void] {
	return chromedp.Poll[chromedp.Void](`(() => {
		const el = document.querySelector(` + strconv.Quote(sel) + `);
		if (!el || el.disabled || el.getClientRects().length === 0) return false;
		el.click();
		return true;
	})()`)
}

// eval evaluates a JavaScript expression.
func eval[T any](t *testing.T, ctx context.Context, expr string) T {
	t.Helper()
	c, cancel := context.WithTimeout(ctx, 15*time.Second)
	defer cancel()
	v, err := chromedp.Run(c, chromedp.Evaluate[T](expr))
	if err != nil {
		t.Fatalf("evaluate %s: %v", expr, err)
	}
	return v
}

// waitFor polls a JavaScript condition until it is true. A navigation
// while it polls (a form post, a redirect) is retried. The deadline is
// for a failure, not a timing check: a fresh-clone CI run once took past
// 10 s for one live update while the whole suite loaded the machine.
func waitFor(t *testing.T, ctx context.Context, what, cond string) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		c, cancel := context.WithTimeout(ctx, time.Until(deadline))
		_, err := chromedp.Run(c, chromedp.Poll[bool](cond))
		cancel()
		if err == nil {
			return
		}
		if time.Now().After(deadline) || ctx.Err() != nil {
			t.Fatalf("waiting until %s (%s): %v", what, cond, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// streamsOpen holds in a page once every event stream it connects (htmx's
// sse-connect) is open, so a test waits for the streams rather than for a
// guess at how long connecting takes.
const streamsOpen = `(() => {
	const els = [...document.querySelectorAll("[sse-connect]")];
	return els.length > 0 && els.every(el => {
		const s = (el["htmx-internal-data"] || {}).sseEventSource;
		return !!s && s.readyState === EventSource.OPEN;
	});
})()`

// waitState polls the database until the ticket is in the state.
func waitState(t *testing.T, e *env, ref board.Ref, st board.State, sub board.SubState) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		tk, err := e.db.Ticket(context.Background(), ref)
		if err == nil && tk.State == st && tk.SubState == sub {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s is %s/%s, want %s/%s", ref, tk.State, tk.SubState, st, sub)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// screenshot saves a full-page screenshot to $BONSAI_TEST_ARTIFACTS for
// people to look at; without it, none is taken (no check reads them).
func screenshot(t *testing.T, ctx context.Context, name string) {
	t.Helper()
	dir := os.Getenv("BONSAI_TEST_ARTIFACTS")
	if dir == "" {
		return
	}
	c, cancel := context.WithTimeout(ctx, 15*time.Second)
	defer cancel()
	png, err := chromedp.Run(c, chromedp.FullScreenshot(100)) // 100 gives a PNG
	if err != nil {
		t.Fatalf("screenshot: %v", err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, name+".png")
	if err := os.WriteFile(path, png, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshot %s", path)
}

// focus focuses the element matched by sel. It queries and focuses in one
// step: a live update may replace a card between two protocol calls.
func focus(t *testing.T, ctx context.Context, sel string) {
	t.Helper()
	if !eval[bool](t, ctx, fmt.Sprintf(`(function(){var e=document.querySelector(%q); if(!e) return false; e.focus(); return document.activeElement===e})()`, sel)) {
		t.Fatalf("cannot focus %s", sel)
	}
}

// cardSel selects the card of a ticket number in a column.
func cardSel(state board.State, n int) string {
	return fmt.Sprintf(`.cards[data-state="%s"] .card[data-number="%d"]`, state, n)
}

// drag drags the element matched by from onto the element matched by to
// with real mouse events.
func drag(t *testing.T, ctx context.Context, from, to string) {
	t.Helper()
	steps(t, ctx, "drag "+from+" to "+to, chromedp.DragAndDrop(chromedp.CSS(from), chromedp.CSS(to)))
}

func TestBrowser_Board(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("browser test")
	}
	e := newEnv(t)
	e.project(t, "demo")
	e.ticket(t, "demo", "Existing ticket", board.Backlog)
	ctx := newBrowser(t)

	// Log in with the token link: the address bar loses the token.
	steps(t, ctx, "log in", chromedp.Navigate(e.ts.URL+"/?token="+e.token), chromedp.WaitVisible(chromedp.CSS(".project-card")))
	loc := eval[string](t, ctx, "location.href")
	if strings.Contains(loc, "token") {
		t.Fatalf("the token stayed in the address bar: %s", loc)
	}
	screenshot(t, ctx, "projects")

	steps(t, ctx, "open the board", click(`a.project-card[href="/p/demo"]`),
		chromedp.WaitVisible(chromedp.CSS("#board")))
	waitFor(t, ctx, "the live stream is open", `!!document.querySelector("#board") && htmx.find("#board") !== null`)
	eval[bool](t, ctx, `window.__noReload = true`)

	// Quick add with the keyboard: c focuses the title.
	// (The DevTools protocol delivers the key's character as a separate
	// event, so it may land in the field; clear it before typing.)
	steps(t, ctx, "press c", chromedp.KeyEvent("c"))
	waitFor(t, ctx, "c focuses the quick-add title", `document.activeElement.id === "quick-title"`)
	eval[bool](t, ctx, `(document.getElementById("quick-title").value = "") === ""`)
	steps(t, ctx, "quick add", chromedp.SendKeys(chromedp.CSS("#quick-title"), "Made in the browser\r"))
	waitFor(t, ctx, "the new card shows", fmt.Sprintf(`!!document.querySelector(%q)`, cardSel(board.Backlog, 2)))
	if tk, err := e.db.Ticket(context.Background(), board.Ref{Project: "demo", Number: 2}); err != nil || tk.Title != "Made in the browser" {
		t.Fatalf("created %+v, %v", tk, err)
	}
	// A blank title is refused next to the field, and what was typed stays.
	steps(t, ctx, "blank quick add", chromedp.SendKeys(chromedp.CSS("#quick-title"), "   \r"))
	waitFor(t, ctx, "the error shows next to the field", `!document.getElementById("quick-error").hidden && document.getElementById("quick-error").textContent === "title is empty" && document.getElementById("toast").hidden`)
	eval[bool](t, ctx, `(document.getElementById("quick-title").value = "") === ""`)

	// Drag #2 from BACKLOG to RESEARCH: it stays there and is saved.
	drag(t, ctx, cardSel(board.Backlog, 2), `.cards[data-state="RESEARCH"]`)
	waitState(t, e, board.Ref{Project: "demo", Number: 2}, board.Research, board.SubNone)
	waitFor(t, ctx, "the card sits in RESEARCH", fmt.Sprintf(`!!document.querySelector(%q)`, cardSel(board.Research, 2)))

	// Drag #1 from BACKLOG to DONE: refused; it snaps back and the rule shows.
	drag(t, ctx, cardSel(board.Backlog, 1), `.cards[data-state="DONE"]`)
	waitFor(t, ctx, "the rule shows", `!document.getElementById("toast").hidden && document.getElementById("toast").textContent.includes("DONE only from VERIFICATION")`)
	waitFor(t, ctx, "the card is back in BACKLOG", fmt.Sprintf(`!!document.querySelector(%q)`, cardSel(board.Backlog, 1)))
	waitState(t, e, board.Ref{Project: "demo", Number: 1}, board.Backlog, board.SubNone)

	// Keyboard: focus #2, Shift+→ moves it to IN_PROGRESS; again is refused
	// (only the agent moves a ticket to VERIFICATION).
	focus(t, ctx, cardSel(board.Research, 2))
	steps(t, ctx, "shift+right", chromedp.KeyEvent(kb.ArrowRight, chromedp.KeyModifiers(chromedp.ModifierShift)))
	waitState(t, e, board.Ref{Project: "demo", Number: 2}, board.InProgress, board.SubNone)
	waitFor(t, ctx, "the card moved right", fmt.Sprintf(`!!document.querySelector(%q)`, cardSel(board.InProgress, 2)))
	eval[bool](t, ctx, `document.getElementById("toast").hidden = true`)
	focus(t, ctx, cardSel(board.InProgress, 2))
	steps(t, ctx, "refused keyboard move", chromedp.KeyEvent(kb.ArrowRight, chromedp.KeyModifiers(chromedp.ModifierShift)))
	waitFor(t, ctx, "the rule shows", `!document.getElementById("toast").hidden && document.getElementById("toast").textContent.includes("VERIFICATION only from IN_PROGRESS, by the agent")`)
	if eval[bool](t, ctx, fmt.Sprintf(`!document.querySelector(%q)`, cardSel(board.InProgress, 2))) {
		t.Fatal("the refused card left IN_PROGRESS")
	}

	// Another writer (a heartbeat in another process) changes the board: it
	// updates without a reload.
	w := otherWriter(t, e)
	bg := context.Background()
	if _, err := w.CreateTicket(bg, board.Ticket{ProjectSlug: "demo", Title: "From the heartbeat", Priority: 0, State: board.Research}, board.Human); err != nil {
		t.Fatal(err)
	}
	if _, err := w.MoveTicket(bg, board.Ref{Project: "demo", Number: 1}, board.MoveRequest{To: board.InProgress, Actor: board.Human}, "someone"); err != nil {
		t.Fatal(err)
	}
	waitFor(t, ctx, "the new ticket shows", fmt.Sprintf(`!!document.querySelector(%q)`, cardSel(board.Research, 3)))
	waitFor(t, ctx, "the moved ticket shows", fmt.Sprintf(`!!document.querySelector(%q)`, cardSel(board.InProgress, 1)))
	if !eval[bool](t, ctx, `window.__noReload === true`) {
		t.Fatal("the page reloaded")
	}
	if n := eval[int](t, ctx, `document.querySelectorAll('.card[data-number="1"]').length`); n != 1 {
		t.Fatalf("card #1 is on the board %d times", n)
	}
	// The counts come in an event of their own, after the cards'.
	waitFor(t, ctx, "the IN_PROGRESS count is 2", `document.querySelector('.column[data-state="IN_PROGRESS"] .count').textContent === "2"`)

	// Filter with /.
	steps(t, ctx, "press /", chromedp.KeyEvent("/"))
	waitFor(t, ctx, "/ focuses the filter", `document.activeElement.id === "filter"`)
	eval[bool](t, ctx, `(document.getElementById("filter").value = "") === ""`)
	steps(t, ctx, "filter", chromedp.SendKeys(chromedp.CSS("#filter"), "heartbeat"))
	waitFor(t, ctx, "the filter hides the others", `document.querySelector('.card[data-number="1"]').hidden && !document.querySelector('.card[data-number="3"]').hidden`)
	steps(t, ctx, "clear the filter", chromedp.KeyEvent(kb.Escape))
	waitFor(t, ctx, "the filter is cleared", `!document.querySelector('.card[data-number="1"]').hidden`)
	screenshot(t, ctx, "board")

	// Arrows move the focus; Enter opens the ticket.
	focus(t, ctx, cardSel(board.Research, 3))
	steps(t, ctx, "arrow right", chromedp.KeyEvent(kb.ArrowRight))
	waitFor(t, ctx, "the focus moves to IN_PROGRESS", `document.activeElement.dataset.state === "IN_PROGRESS"`)
	steps(t, ctx, "arrow down", chromedp.KeyEvent(kb.ArrowDown))
	want := eval[string](t, ctx, `document.activeElement.getAttribute("href")`)
	steps(t, ctx, "press enter", chromedp.KeyEvent(kb.Enter), chromedp.WaitVisible(chromedp.CSS(".ticket-head")))
	if loc := eval[string](t, ctx, "location.pathname"); loc != want || !strings.HasPrefix(loc, "/p/demo/") {
		t.Fatalf("enter opened %s, want %s", loc, want)
	}

	// Settings: an invalid value is shown next to its field.
	steps(t, ctx, "open settings", chromedp.Navigate(e.ts.URL+"/settings"), chromedp.WaitVisible(chromedp.CSS("#save-settings")))
	eval[bool](t, ctx, `(document.getElementById("k-heartbeat.intervalSec").value = "5") === "5"`)
	steps(t, ctx, "save", click("#save-settings"))
	waitFor(t, ctx, "the error shows", `document.readyState === "complete" && !!document.querySelector(".field-error") && document.querySelector(".field-error").textContent.includes("from 10 to 86400")`)
	screenshot(t, ctx, "settings")
}

func TestBrowser_Ticket(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("browser test")
	}
	e := newEnv(t)
	e.project(t, "demo")
	bg := context.Background()
	blocked := e.ticket(t, "demo", "Needs an answer", board.InProgress)
	e.db.UpdateTicket(bg, blocked.Ref(), planUpdate(ptr("1. Read the code\n2. Change it")), board.Agent)
	e.db.AddComment(bg, blocked.Ref(), board.Comment{AuthorType: board.Agent, AuthorName: "agent", Kind: board.KindQuestion,
		Content: "Should `--verbose` print to **stderr**?"})
	review := e.ticket(t, "demo", "Ready for review", board.InProgress)
	back := e.ticket(t, "demo", "Not quite", board.InProgress)
	e.toVerification(t, review.Ref())
	e.toVerification(t, back.Ref())
	ctx := newBrowser(t)
	steps(t, ctx, "log in", chromedp.Navigate(e.ts.URL+"/?token="+e.token), chromedp.WaitVisible(chromedp.CSS(".project-card")))

	// Answer the agent's question: the ticket unblocks.
	steps(t, ctx, "open the blocked ticket", chromedp.Navigate(e.ts.URL+"/p/demo/1"), chromedp.WaitVisible(chromedp.CSS(".question-banner")))
	screenshot(t, ctx, "ticket-blocked")
	steps(t, ctx, "reply", chromedp.SendKeys(chromedp.CSS("#reply-text"), "Yes, stderr."), click("#send-reply"))
	waitFor(t, ctx, "the banner goes", `document.readyState === "complete" && !document.querySelector(".question-banner") && document.body.textContent.includes("Yes, stderr.")`)
	waitState(t, e, blocked.Ref(), board.InProgress, board.SubNone)

	// The agent writes while the page is open: it shows without a reload.
	eval[bool](t, ctx, `window.__noReload = true`)
	waitFor(t, ctx, "the live stream is open", streamsOpen)
	w := otherWriter(t, e)
	w.AddComment(bg, blocked.Ref(), board.Comment{AuthorType: board.Agent, AuthorName: "agent", Kind: board.KindStatus, Content: "Switched the output to stderr."})
	waitFor(t, ctx, "the agent's comment appears", `document.querySelector(".thread").textContent.includes("Switched the output to stderr.") && window.__noReload === true`)

	// Approve.
	steps(t, ctx, "open the ticket in review", chromedp.Navigate(e.ts.URL+"/p/demo/2"), chromedp.WaitVisible(chromedp.CSS("#approve")))
	screenshot(t, ctx, "ticket-review")
	steps(t, ctx, "approve", click("#approve"))
	waitState(t, e, review.Ref(), board.Done, board.SubNone)
	waitFor(t, ctx, "the page shows Done", `document.readyState === "complete" && document.querySelector(".state") && document.querySelector(".state").textContent === "Done"`)

	// Request changes needs feedback: the browser refuses an empty form.
	steps(t, ctx, "open the other ticket", chromedp.Navigate(e.ts.URL+"/p/demo/3"), chromedp.WaitVisible(chromedp.CSS("#request-changes")))
	steps(t, ctx, "empty feedback", click("#request-changes"))
	time.Sleep(200 * time.Millisecond)
	waitState(t, e, back.Ref(), board.Verification, board.SubNone)
	steps(t, ctx, "feedback", chromedp.SendKeys(chromedp.CSS("#feedback"), "Add a test for the empty case."), click("#request-changes"))
	waitState(t, e, back.Ref(), board.InProgress, board.SubReturned)
	waitFor(t, ctx, "the feedback is in the thread", `document.readyState === "complete" && document.querySelector(".comment.kind-feedback") !== null`)
}

func ptr[T any](v T) *T { return &v }

func TestBrowser_LiveActivity(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("browser test")
	}
	e := newEnv(t)
	e.project(t, "demo")
	tk := e.ticket(t, "demo", "Agent at work", board.InProgress)
	ctx := newBrowser(t)
	steps(t, ctx, "log in", chromedp.Navigate(e.ts.URL+"/?token="+e.token), chromedp.WaitVisible(chromedp.CSS(".project-card")))
	steps(t, ctx, "open the ticket", chromedp.Navigate(e.ts.URL+"/p/demo/1"), chromedp.WaitVisible(chromedp.CSS(".ticket-head")))
	eval[bool](t, ctx, `window.__noReload = true`)
	waitFor(t, ctx, "the event stream is open", streamsOpen)

	// A heartbeat in another process starts a run: the activity appears,
	// then each entry the agent writes streams in.
	w := otherWriter(t, e)
	bg := context.Background()
	run, err := w.StartRun(bg, board.Run{TicketID: tk.ID, Task: board.TaskImplement})
	if err != nil {
		t.Fatal(err)
	}
	waitFor(t, ctx, "the live activity shows", `!!document.getElementById("activity")`)
	waitFor(t, ctx, "the activity stream is open", streamsOpen)
	f := agentSession(t, e, tk)
	scriptedTurn(t, f, "Looking at **main.go** first.")
	waitFor(t, ctx, "the agent's text streams in", `document.getElementById("activity").textContent.includes("Looking at main.go first.")`)
	waitFor(t, ctx, "the tool call streams in", `document.querySelectorAll("#activity .entry-tool").length === 1 && document.querySelector("#activity .call code").textContent === "read"`)
	appendMsg(t, f, llm.Message{Role: llm.RoleAssistant, StopReason: llm.StopEnd, Content: []llm.Part{llm.Text("Done: the flag prints each step.")}})
	waitFor(t, ctx, "the last message streams in", `document.getElementById("activity").textContent.includes("Done: the flag prints each step.")`)
	// A command reads as typed; a result too large to show is a placeholder.
	appendMsg(t, f, llm.Message{Role: llm.RoleAssistant, StopReason: llm.StopToolUse, Content: []llm.Part{
		llm.ToolCall("c9", "bash", []byte(`{"command":"cd a && make 2>&1"}`))}})
	writeHugeResult(t, f.Path(), 2_000_000, true)
	waitFor(t, ctx, "the command shows as typed", `[...document.querySelectorAll("#activity .call pre")].some(p => p.textContent === "cd a && make 2>&1")`)
	waitFor(t, ctx, "the huge result is a placeholder", `document.getElementById("activity").textContent.includes("Entry too large to show (2.0 MB)")`)
	screenshot(t, ctx, "ticket-live-activity")

	run.Status, run.CostUSD = board.RunCompleted, 0.42
	if _, err := w.FinishRun(bg, run); err != nil {
		t.Fatal(err)
	}
	waitFor(t, ctx, "the run shows as finished", `!document.getElementById("activity") && document.querySelector(".runs .run-status").textContent === "completed" && window.__noReload === true`)

	// The run's transcript viewer shows the same entries.
	steps(t, ctx, "open the run", click(".runs a"), chromedp.WaitVisible(chromedp.CSS(".transcript")))
	waitFor(t, ctx, "the transcript shows", `document.querySelector(".transcript").textContent.includes("Done: the flag prints each step.")`)
	waitFor(t, ctx, "the command shows as typed", `[...document.querySelectorAll(".transcript .call pre")].some(p => p.textContent === "cd a && make 2>&1")`)
	waitFor(t, ctx, "the huge result is a placeholder", `document.querySelector(".transcript").textContent.includes("Entry too large to show (2.0 MB)")`)
	screenshot(t, ctx, "run-transcript")
}

func TestBrowser_Approval(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("browser test")
	}
	e := newEnv(t)
	e.project(t, "demo")
	tk := e.ticket(t, "demo", "Touch a file", board.InProgress)
	a := e.request(t, tk.Ref(), "touch approved.txt", "touch approved.txt")
	ctx := newBrowser(t)
	steps(t, ctx, "log in", chromedp.Navigate(e.ts.URL+"/?token="+e.token), chromedp.WaitVisible(chromedp.CSS(".project-card")))
	steps(t, ctx, "open the blocked ticket", chromedp.Navigate(e.ts.URL+"/p/demo/1"), chromedp.WaitVisible(chromedp.CSS("#approvals")))
	screenshot(t, ctx, "ticket-approval")
	steps(t, ctx, "always allow with a note",
		chromedp.SendKeys(chromedp.CSS("#approval-note-"+a.ID), "Fine, it only touches one file."),
		click("#allow-always-"+a.ID))
	waitState(t, e, tk.Ref(), board.InProgress, board.SubNone)
	waitFor(t, ctx, "the decision is in the thread", `document.readyState === "complete" && !document.querySelector("#approvals") && document.querySelector(".comment.kind-permission.author-human") !== null && document.querySelector(".thread").textContent.includes("Fine, it only touches one file.")`)
	as, err := e.db.Approvals(context.Background(), tk.Ref())
	if err != nil || len(as) != 1 || as[0].Status != board.ApprovalAllowed || !as[0].Always {
		t.Fatalf("approvals = %+v, %v; want allowed always", as, err)
	}
}
