package web

import (
	"context"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/bonsai-run/bonsai/internal/agent"
	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/heartbeat/agentrunner"
	"github.com/bonsai-run/bonsai/internal/llm"
	"github.com/bonsai-run/bonsai/internal/store/postgres"
)

// TestBrowser_PartialMessageStreams watches a ticket page while the
// heartbeat's live writer streams a message: the text shows while it is
// written, each batch replacing the last, and the complete message takes
// its place when it reaches the transcript. On a shared board (Postgres)
// the agent runs on another machine: the page follows the store.
func TestBrowser_PartialMessageStreams(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("browser test")
	}
	for _, shared := range []bool{false, true} {
		name := map[bool]string{false: "one machine", true: "shared board"}[shared]
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			var (
				e   *env
				lw  *agentrunner.Live
				add func(llm.Message)
			)
			if shared {
				var worker *postgres.DB
				e, worker = newSharedEnv(t)
				a := newRemoteAgent(t, worker)
				lw, add = a.lw, a.add
			} else {
				e = newEnv(t)
				e.project(t, "demo")
				tk := e.ticket(t, "demo", "Agent at work", board.InProgress)
				if _, err := otherWriter(t, e).StartRun(context.Background(), board.Run{TicketID: tk.ID, Task: board.TaskImplement}); err != nil {
					t.Fatal(err)
				}
				f := agentSession(t, e, tk)
				lw = agentrunner.NewLive(f.Path(), nil)
				defer lw.Close()
				add = func(m llm.Message) { appendMsg(t, f, m) }
			}
			add(llm.UserText("Work on ticket demo#1"))
			partialMessageStreams(t, e, lw, add, map[bool]string{true: "shared-"}[shared])
		})
	}
}

// partialMessageStreams is the test of one board; its screenshots are
// named with prefix.
func partialMessageStreams(t *testing.T, e *env, lw *agentrunner.Live, add func(llm.Message), prefix string) {
	ctx := newBrowser(t)
	steps(t, ctx, "log in", chromedp.Navigate(e.ts.URL+"/?token="+e.token), chromedp.WaitVisible(chromedp.CSS(".project-card")))
	steps(t, ctx, "open the ticket", chromedp.Navigate(e.ts.URL+"/p/demo/1"), chromedp.WaitVisible(chromedp.CSS("#activity")))
	eval[bool](t, ctx, `window.__noReload = true`)

	assistantStart(lw)
	streamDelta(lw, llm.EventThinkingDelta, 0, "The answer needs the flag's history.")
	words := strings.Fields("The flag was added in v1.2 to print **each step**; it is read in main.go and")
	for _, w := range words[:6] {
		streamDelta(lw, llm.EventTextDelta, 1, w+" ")
	}
	const partial = `document.querySelector("#activity-partial .entry-partial")`
	waitFor(t, ctx, "the partial text shows", partial+` !== null && `+partial+`.textContent.includes("The flag was added in v1.2 ")`)
	// The person opens the thinking; it stays open as the message grows.
	steps(t, ctx, "open the thinking", click("#activity-partial .thinking summary"))
	for _, w := range words[6:] {
		streamDelta(lw, llm.EventTextDelta, 1, w+" ")
	}
	waitFor(t, ctx, "the partial grows in place", partial+`.textContent.includes("read in main.go and") && document.querySelectorAll(".entry-partial").length === 1`)
	if !eval[bool](t, ctx, partial+`.querySelector(".thinking").open`) {
		t.Error("the thinking the person opened closed when the message grew")
	}
	if got := eval[string](t, ctx, partial+`.querySelector(".partial-text").textContent`); !strings.Contains(got, "**each step**") {
		t.Errorf("partial text is %q; want the Markdown as typed (rendered when complete)", got)
	}
	screenshot(t, ctx, prefix+"ticket-partial-message")

	// The message completes: the transcript has it, rendered, and the
	// partial is gone.
	complete := "The flag was added in v1.2 to print **each step**; it is read in main.go and nowhere else."
	add(llm.Message{Role: llm.RoleAssistant, StopReason: llm.StopEnd, Usage: &llm.Usage{Input: 900, Output: 40},
		Content: []llm.Part{{Type: llm.PartThinking, Thinking: "The answer needs the flag's history."}, llm.Text(complete)}})
	lw.Event(agent.Event{Type: agent.EventMessageEnd, Message: &llm.Message{Role: llm.RoleAssistant}})
	waitFor(t, ctx, "the complete message replaces the partial",
		`document.querySelector("#activity .entry-assistant strong") !== null && document.getElementById("activity").textContent.includes("nowhere else.") && `+partial+` === null`)
	if n := eval[int](t, ctx, `document.querySelectorAll("#activity .entry-assistant").length`); n != 1 {
		t.Errorf("%d assistant entries; want 1", n)
	}
	if !eval[bool](t, ctx, `window.__noReload === true`) {
		t.Error("the page reloaded")
	}
	screenshot(t, ctx, prefix+"ticket-partial-replaced")
}
