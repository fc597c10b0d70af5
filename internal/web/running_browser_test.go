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
	"github.com/bonsai-run/bonsai/internal/tool"
)

// TestBrowser_RunningCommandStreams: while a long bash command runs, Live
// activity on the ticket page and the run page show it as running, with
// its command, a counting elapsed time and its output as it streams
// (the agent loop's tool_execution_update events, through the heartbeat's
// live writer and the activity stream); when its result reaches the
// transcript, the result takes its place.
func TestBrowser_RunningCommandStreams(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("browser test")
	}
	e := newEnv(t)
	e.project(t, "demo")
	tk := e.ticket(t, "demo", "Build it", board.InProgress)
	run, err := otherWriter(t, e).StartRun(context.Background(), board.Run{TicketID: tk.ID, Task: board.TaskImplement})
	if err != nil {
		t.Fatal(err)
	}
	f := agentSession(t, e, tk)
	lw := agentrunner.NewLive(f.Path(), nil)
	defer lw.Close()
	appendMsg(t, f, llm.UserText("Work on ticket demo#1"))
	cmd := `{"command":"make -j4 all 2>&1"}`
	appendMsg(t, f, llm.Message{Role: llm.RoleAssistant, StopReason: llm.StopToolUse, Content: []llm.Part{
		llm.Text("Building."), llm.ToolCall("c1", "bash", []byte(cmd))}})

	ctx := newBrowser(t)
	steps(t, ctx, "log in", chromedp.Navigate(e.ts.URL+"/?token="+e.token), chromedp.WaitVisible(chromedp.CSS(".project-card")))
	for _, page := range []string{"/p/demo/1", "/runs/" + run.ID} {
		steps(t, ctx, "open "+page, chromedp.Navigate(e.ts.URL+page), chromedp.WaitVisible(chromedp.CSS("#activity")))
		eval[bool](t, ctx, `window.__noReload = true`)
		waitFor(t, ctx, "the activity stream is open", streamsOpen)

		lw.Event(agent.Event{Type: agent.EventToolExecutionStart, ToolCallID: "c1", ToolName: "bash", Args: []byte(cmd)})
		const running = `document.querySelector("#activity-partial .entry-running")`
		waitFor(t, ctx, "the command shows as running", running+` !== null && `+running+`.querySelector(".who").textContent.includes("running bash") && [...`+running+`.querySelectorAll("pre")].some(p => p.textContent === "make -j4 all 2>&1") && `+running+`.textContent.includes("No output yet.")`)
		// The elapsed time counts while nothing is printed.
		first := eval[string](t, ctx, running+`.querySelector(".elapsed").textContent`)
		if !strings.HasSuffix(first, " s") {
			t.Fatalf("elapsed reads %q", first)
		}
		waitFor(t, ctx, "the elapsed time counts", running+`.querySelector(".elapsed").textContent !== `+jsString(first))

		out := ""
		// The output is the agent's commands' text: shown as text, never
		// as markup.
		for _, line := range []string{"cc -c a.c", `<img src=x onerror="window.__owned=1"><b>bold</b>`, "ld -o app a.o b.o"} {
			out += line + "\n"
			r := tool.Text(out)
			lw.Event(agent.Event{Type: agent.EventToolExecutionUpdate, ToolCallID: "c1", ToolName: "bash", ToolResult: &r})
			waitFor(t, ctx, "the output streams: "+line, running+` !== null && `+running+`.querySelector("pre.output") !== null && `+running+`.querySelector("pre.output").textContent.includes(`+jsString(line)+`)`)
		}
		if eval[bool](t, ctx, `!!document.querySelector("#activity-partial pre.output img, #activity-partial pre.output b") || window.__owned === 1`) {
			t.Fatal("the command's output was rendered as markup")
		}
		if page == "/p/demo/1" {
			screenshot(t, ctx, "ticket-running-command")
		} else {
			screenshot(t, ctx, "run-running-command")
		}
		// The tool's window moves on (its output grew past what it
		// keeps): the page shows the new end.
		r := tool.Text("[earlier output cut]\nld -o app a.o b.o\nstrip app\n")
		lw.Event(agent.Event{Type: agent.EventToolExecutionUpdate, ToolCallID: "c1", ToolName: "bash", ToolResult: &r})
		waitFor(t, ctx, "the output's new end shows", running+`.querySelector("pre.output").textContent.includes("strip app")`)

		res := tool.Text(out + "strip app\n")
		lw.Event(agent.Event{Type: agent.EventToolExecutionEnd, ToolCallID: "c1", ToolName: "bash", ToolResult: &res})
		appendMsg(t, f, llm.ToolResultText("c1", "bash", out+"strip app\n", false))
		waitFor(t, ctx, "the result replaces the running command", `!document.querySelector("#activity-partial .entry-running") && [...document.querySelectorAll("#activity .entry-tool pre")].some(p => p.textContent.includes("strip app"))`)
		if !eval[bool](t, ctx, `window.__noReload === true`) {
			t.Fatal("the page reloaded")
		}
		// The next command of the test starts from a new assistant turn.
		appendMsg(t, f, llm.Message{Role: llm.RoleAssistant, StopReason: llm.StopToolUse, Content: []llm.Part{
			llm.ToolCall("c1", "bash", []byte(cmd))}})
	}
}

// jsString quotes s as a JavaScript string.
func jsString(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch r {
		case '"', '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case '\n':
			b.WriteString(`\n`)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}
