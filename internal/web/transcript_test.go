package web

import (
	"context"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/llm"
	"github.com/bonsai-run/bonsai/internal/session"
)

// agentSession opens the ticket's transcript the way the agent writes it.
func agentSession(t testing.TB, e *env, tk board.Ticket) *session.File {
	t.Helper()
	return agentSessionClock(t, e, tk, nil)
}

// agentSessionClock is agentSession with the transcript's clock; nil means
// time.Now.
func agentSessionClock(t testing.TB, e *env, tk board.Ticket, now func() time.Time) *session.File {
	t.Helper()
	path := e.srv.transcriptFile(context.Background(), tk.ProjectID, tk.ID)
	f, err := session.Create(path, "/work", session.Options{Now: now})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}

func appendMsg(t testing.TB, f *session.File, m llm.Message) {
	t.Helper()
	if _, err := f.AppendMessage(m, nil); err != nil {
		t.Fatal(err)
	}
}

// scriptedTurn is one turn of an agent: it thinks, reads a file and answers.
func scriptedTurn(t testing.TB, f *session.File, text string) {
	t.Helper()
	appendMsg(t, f, llm.Message{Role: llm.RoleAssistant, Model: "anthropic/claude-sonnet-4-5", StopReason: llm.StopToolUse,
		Usage: &llm.Usage{Input: 1200, Output: 80, CacheRead: 300, Cost: 0.0123},
		Content: []llm.Part{{Type: llm.PartThinking, Thinking: "I should read the file"}, llm.Text(text),
			llm.ToolCall("call_1", "read", []byte(`{"path":"main.go"}`))}})
	appendMsg(t, f, llm.ToolResultText("call_1", "read", strings.Repeat("1\tpackage main\n", 40), false))
}

func TestRunPage_Transcript(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.project(t, "demo")
	tk := e.ticket(t, "demo", "t", board.Research)
	ctx := context.Background()
	run, err := e.db.StartRun(ctx, board.Run{TicketID: tk.ID, Task: board.TaskResearch})
	if err != nil {
		t.Fatal(err)
	}
	f := agentSession(t, e, tk)
	appendMsg(t, f, llm.UserText("Work on ticket demo#1"))
	scriptedTurn(t, f, "Reading `main.go` <script>alert(1)</script>")
	appendMsg(t, f, llm.ToolResultText("call_2", "bash", "exit 1", true))
	run.Status = board.RunCompleted
	e.db.FinishRun(ctx, run)
	e.srv.Catchup(ctx)

	r := e.get(t, e.browser(t), "/runs/"+run.ID)
	wantStatus(t, r, 200)
	wantBody(t, r, "Work on ticket demo#1", "<code>main.go</code>", "I should read the file", "<code>read</code>",
		`<span class="arg-key">path</span> <code>main.go</code>`, "1200 in · 80 out · 300 cached · $0.0123", "1 turn ·",
		`<details class="result">`, // 40 lines: collapsed
		`entry-tool is-error`)
	if live := liveScript(r.body); live != "" {
		t.Fatalf("agent output renders live markup: %s", live)
	}
}

func TestRunPage_ToolArgumentsAsPeopleReadThem(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.project(t, "demo")
	tk := e.ticket(t, "demo", "t", board.Research)
	ctx := context.Background()
	run, err := e.db.StartRun(ctx, board.Run{TicketID: tk.ID, Task: board.TaskResearch})
	if err != nil {
		t.Fatal(err)
	}
	f := agentSession(t, e, tk)
	appendMsg(t, f, llm.UserText("Work on ticket demo#1"))
	appendMsg(t, f, llm.Message{Role: llm.RoleAssistant, StopReason: llm.StopToolUse, Content: []llm.Part{
		llm.ToolCall("c1", "bash", []byte(`{"command":"cd a && make 2>&1","timeout":30}`)),
		llm.ToolCall("c2", "write", []byte(`{"path":"hello.go","content":"package main\n\nfunc main() { println(\"a<b\") }\n"}`)),
		llm.ToolCall("c3", "edit", []byte(`{"path":"x.go","old_string":"if a && b {","new_string":"if a || b {"}`)),
		llm.ToolCall("c4", "find", []byte(`{"pattern":"*.go","limit":5,"opts":{"deep":true}}`)),
	}})
	raw, _ := os.ReadFile(f.Path())
	if !strings.Contains(string(raw), `\u0026\u0026`) {
		t.Fatalf("the transcript does not escape & as the agent's writes do:\n%s", raw)
	}
	run.Status = board.RunCompleted
	e.db.FinishRun(ctx, run)
	e.srv.Catchup(ctx)

	r := e.get(t, e.browser(t), "/runs/"+run.ID)
	wantStatus(t, r, 200)
	wantBody(t, r,
		`<pre class="arg-text">cd a &amp;&amp; make 2&gt;&amp;1</pre>`, // the command as text, without a label
		`<span class="arg-key">timeout</span> <code>30</code>`,
		`<span class="arg-key">path</span> <code>hello.go</code>`,
		"<span class=\"arg-key\">content</span><pre class=\"arg-text\">package main\n\nfunc main() { println(&#34;a&lt;b&#34;) }\n</pre>",
		`<span class="arg-key">old_string</span><pre class="arg-text">if a &amp;&amp; b {</pre>`,
		`<span class="arg-key">new_string</span><pre class="arg-text">if a || b {</pre>`,
		`<span class="arg-key">limit</span> <code>5</code>`,
		"<span class=\"arg-key\">opts</span><pre class=\"arg-text\">{\n  &#34;deep&#34;: true\n}</pre>")
	for _, bad := range []string{`\u0026`, `\u003c`, `\u003e`, `\n`} {
		if strings.Contains(r.body, bad) {
			t.Errorf("the page shows the escape %s", bad)
		}
	}
}

func TestActivity_StreamsAppendedEntries(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.project(t, "demo")
	tk := e.ticket(t, "demo", "t", board.InProgress)
	ctx := context.Background()
	// The old run's entries are dated two seconds back: older than the new
	// run by more than the second of slack the page allows.
	offset := -2 * time.Second
	f := agentSessionClock(t, e, tk, func() time.Time { return time.Now().Add(offset) })
	appendMsg(t, f, llm.UserText("Old run's prompt"))
	offset = 0
	if _, err := e.db.StartRun(ctx, board.Run{TicketID: tk.ID, Task: board.TaskImplement}); err != nil {
		t.Fatal(err)
	}
	scriptedTurn(t, f, "First step of this run")
	c := e.browser(t)
	r := e.get(t, c, "/p/demo/1")
	wantBody(t, r, "Live activity", "First step of this run", `sse-connect="/p/demo/1/activity?offset=`)
	if strings.Contains(r.body, "Old run&#39;s prompt") || strings.Contains(r.body, "Old run's prompt") {
		t.Error("the live activity shows an earlier run")
	}

	fi, _ := os.Stat(f.Path())
	req, _ := http.NewRequest("GET", e.ts.URL+"/p/demo/1/activity?offset="+itoa64(fi.Size()), nil)
	s := openStream(t, req, c)
	scriptedTurn(t, f, "Second step, live")
	ev := s.next(t, 3*time.Second)
	if ev.event != "entry" || !strings.Contains(ev.data, "Second step, live") || !strings.Contains(ev.data, "entry-assistant") {
		t.Fatalf("first live entry %+v", ev)
	}
	if ev = s.next(t, 3*time.Second); !strings.Contains(ev.data, "entry-tool") {
		t.Fatalf("second live entry %+v", ev)
	}
	req, _ = http.NewRequest("GET", e.ts.URL+"/p/demo/1/activity?offset=-1", nil)
	wantStatus(t, send(t, c, req), 400)
}

func TestParseHead_OfACutLine(t *testing.T) {
	t.Parallel()
	line := `{"type":"message","id":"0000abcd","parentId":"0000abcc","timestamp":"2026-01-02T03:04:08.000Z","message":{"role":"toolResult","content":[{"type":"text","text":"xxxxxxxx`
	h := parseHead([]byte(line))
	if h != (entryHead{Type: "message", ID: "0000abcd", Timestamp: "2026-01-02T03:04:08.000Z", Role: "toolResult"}) {
		t.Fatalf("head %+v", h)
	}
}

func TestTranscriptPath_RefusesEscapes(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	for _, shared := range []bool{false, true} { // the session files, the store's copies
		e.srv.opts.SharedBoard = shared
		for _, ids := range [][2]string{{"..", "x"}, {"a/b", "x"}, {"p", "../x"}, {"", "x"}, {".hidden", "x"}} {
			if p := e.srv.transcriptFile(context.Background(), ids[0], ids[1]); p != "" {
				t.Errorf("shared %v: transcriptFile(%q, %q) = %q", shared, ids[0], ids[1], p)
			}
		}
	}
}

func TestRunPage_RunningRunShowsUsageSoFar(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.project(t, "demo")
	tk := e.ticket(t, "demo", "t", board.InProgress)
	ctx := context.Background()
	run, err := e.db.StartRun(ctx, board.Run{TicketID: tk.ID, Task: board.TaskImplement})
	if err != nil {
		t.Fatal(err)
	}
	f := agentSession(t, e, tk)
	appendMsg(t, f, llm.UserText("Work on ticket demo#1"))
	scriptedTurn(t, f, "First step")
	scriptedTurn(t, f, "Second step")
	e.srv.Catchup(ctx)
	c := e.browser(t)

	r := e.get(t, c, "/runs/"+run.ID)
	wantStatus(t, r, 200)
	wantBody(t, r, "2400 in, 160 out, 600 cache read so far, in 2 turns — the run is still going", "$0.0246 so far", "still running")
	if strings.Contains(r.body, "0 in, 0 out") {
		t.Fatal("a running run's page shows zero tokens")
	}
	r = e.get(t, c, "/p/demo/1")
	if strings.Contains(r.body, "<td>0/0</td>") {
		t.Fatal("the ticket's runs show zero tokens for the running run")
	}

	// Once the run ends, its record's totals are shown.
	run.Status, run.InputTokens, run.OutputTokens, run.CostUSD = board.RunCompleted, 2500, 170, 0.03
	if _, err := e.db.FinishRun(ctx, run); err != nil {
		t.Fatal(err)
	}
	e.srv.Catchup(ctx)
	r = e.get(t, c, "/runs/"+run.ID)
	wantBody(t, r, "2500 in, 170 out, 0 cache read", "$0.0300")
	if strings.Contains(r.body, "so far") {
		t.Fatal("a finished run's page says so far")
	}
}
