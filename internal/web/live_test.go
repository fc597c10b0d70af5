package web

import (
	"context"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/bonsai-run/bonsai/internal/agent"
	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/heartbeat/agentrunner"
	"github.com/bonsai-run/bonsai/internal/llm"
	"github.com/bonsai-run/bonsai/internal/session"
)

// streamDelta feeds the heartbeat's live writer one streamed delta, as the
// agent loop does.
func streamDelta(lw *agentrunner.Live, typ llm.EventType, i int, d string) {
	ev := llm.Event{Type: typ, Index: i, Delta: d}
	if typ == llm.EventToolCallStart {
		ev = llm.Event{Type: typ, Index: i, Part: &llm.Part{Type: llm.PartToolCall, ID: "c1", Name: d}}
	}
	lw.Event(agent.Event{Type: agent.EventMessageUpdate, Delta: &ev})
}

func assistantStart(lw *agentrunner.Live) {
	lw.Event(agent.Event{Type: agent.EventMessageStart, Message: &llm.Message{Role: llm.RoleAssistant}})
}

// nextOf reads events until one of type event arrives.
func nextOf(t *testing.T, s *sseClient, event string) sseEvent {
	t.Helper()
	for {
		if ev := s.next(t, 5*time.Second); ev.event == event {
			return ev
		}
	}
}

func TestActivity_StreamsThePartialMessage(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.project(t, "demo")
	tk := e.ticket(t, "demo", "t", board.InProgress)
	if _, err := e.db.StartRun(context.Background(), board.Run{TicketID: tk.ID, Task: board.TaskImplement}); err != nil {
		t.Fatal(err)
	}
	f := agentSession(t, e, tk)
	appendMsg(t, f, llm.UserText("Work on ticket demo#1"))
	c := e.browser(t)
	r := e.get(t, c, "/p/demo/1")
	wantBody(t, r, `id="activity-partial" sse-swap="partial"`)
	fi, _ := os.Stat(f.Path())
	req, _ := http.NewRequest("GET", e.ts.URL+"/p/demo/1/activity?offset="+itoa64(fi.Size()), nil)
	s := openStream(t, req, c)

	// The heartbeat streams a message: each batch replaces the partial.
	lw := agentrunner.NewLive(f.Path(), nil)
	defer lw.Close()
	assistantStart(lw)
	streamDelta(lw, llm.EventThinkingDelta, 0, "Where is the flag parsed?")
	streamDelta(lw, llm.EventTextDelta, 1, "Reading <script>alert(1)</script>")
	ev := nextOf(t, s, "partial")
	for !strings.Contains(ev.data, "Reading &lt;script&gt;") { // the two deltas may arrive in two batches
		ev = nextOf(t, s, "partial")
	}
	if !strings.Contains(ev.data, "entry-partial") || !strings.Contains(ev.data, "Where is the flag parsed?") || strings.Contains(ev.data, "<script>") {
		t.Fatalf("partial %q", ev.data)
	}
	streamDelta(lw, llm.EventTextDelta, 1, " main.go first.")
	streamDelta(lw, llm.EventToolCallStart, 2, "read")
	streamDelta(lw, llm.EventToolCallDelta, 2, `{"path":"ma`)
	for !strings.Contains(ev.data, `{&#34;path&#34;:&#34;ma`) {
		ev = nextOf(t, s, "partial")
	}
	if !strings.Contains(ev.data, "main.go first.") || !strings.Contains(ev.data, "<code>read</code>") {
		t.Fatalf("partial after more deltas %q", ev.data)
	}

	// The message completes: its entry arrives and the partial goes.
	appendMsg(t, f, llm.Message{Role: llm.RoleAssistant, StopReason: llm.StopToolUse,
		Content: []llm.Part{{Type: llm.PartThinking, Thinking: "Where is the flag parsed?"},
			llm.Text("Reading main.go first."), llm.ToolCall("c1", "read", []byte(`{"path":"main.go"}`))}})
	lw.Event(agent.Event{Type: agent.EventMessageEnd, Message: &llm.Message{Role: llm.RoleAssistant}})
	var gotEntry, cleared bool
	for !gotEntry || !cleared {
		ev := s.next(t, 5*time.Second)
		switch ev.event {
		case "entry":
			if !strings.Contains(ev.data, "Reading main.go first.") {
				t.Fatalf("entry %q", ev.data)
			}
			gotEntry = true
		case "partial":
			if strings.Contains(ev.data, "entry-partial") {
				t.Fatalf("the partial shows after its message is complete: %q", ev.data)
			}
			cleared = true
		}
	}

	// The next message replaces the file; the page follows the new one.
	appendMsg(t, f, llm.ToolResultText("c1", "read", "package main", false))
	assistantStart(lw)
	streamDelta(lw, llm.EventTextDelta, 0, "Second message")
	ev = nextOf(t, s, "partial")
	if !strings.Contains(ev.data, "Second message") || strings.Contains(ev.data, "main.go first") {
		t.Fatalf("second partial %q", ev.data)
	}
	// The run ends without completing it: the file goes, and so does the
	// partial.
	lw.Close()
	if ev = nextOf(t, s, "partial"); strings.Contains(ev.data, "entry-partial") {
		t.Fatalf("the partial outlives the run: %q", ev.data)
	}
}

// writeLive writes a live file by hand, as a heartbeat of another version
// might.
func writeLive(t testing.TB, path, content string) {
	t.Helper()
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, path); err != nil {
		t.Fatal(err)
	}
}

func appendLive(t testing.TB, path, content string) {
	t.Helper()
	fh, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer fh.Close()
	if _, err := fh.WriteString(content); err != nil {
		t.Fatal(err)
	}
}

func TestLivePartial_ShowsTheEndOfAHugePart(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), session.LiveFileName)
	big := strings.Repeat("é", partialShow) // 2 bytes a rune
	writeLive(t, path, `{"type":"message","at":1}`+"\n")
	for range 16 {
		appendLive(t, path, `{"type":"delta","kind":"text","d":"`+big+`"}`+"\n")
	}
	appendLive(t, path, `{"type":"delta","kind":"text","d":"END"}`+"\n")
	l := session.NewLiveReader(path, partialShow)
	l.Poll()
	v := livePartial(l, 1)
	if len(v.Parts) != 1 {
		t.Fatalf("parts %d", len(v.Parts))
	}
	p := v.Parts[0]
	if len(p.Text) > partialShow || !strings.HasSuffix(p.Text, "éEND") || !strings.HasPrefix(p.Text, "é") || p.Cut+len(p.Text) != 16*len(big)+3 {
		t.Fatalf("shown %d bytes (cut %d), ends %q", len(p.Text), p.Cut, p.Text[len(p.Text)-10:])
	}
	if _, parts, _ := l.Streaming(); cap(parts[0].Text) > 8*partialShow { // not the 512 KiB streamed
		t.Fatalf("the reader keeps %d bytes of a part", cap(parts[0].Text))
	}
}

// FuzzLivePartial feeds arbitrary live-file lines to the reader, which
// must not panic on anything a crashed or older writer leaves behind, and
// must keep each part bounded, as must the page.
func FuzzLivePartial(f *testing.F) {
	f.Add(`{"type":"message","at":10}`, `{"type":"delta","i":2,"kind":"toolCall","name":"read","d":"{\"pa"}`)
	f.Add(`{"type":"message","at":-1}`, `{"type":"delta","i":-3,"kind":"text","d":"x"}`)
	f.Add(`{"type":"delta","i":99999999999,"d":"x"}`, `{"type":"done"}`)
	f.Add(`{"type":"message"}`, `{"type":"delta","kind":"text","d":"\u00e9\u00e9"}`)
	path := filepath.Join(f.TempDir(), session.LiveFileName)
	f.Fuzz(func(t *testing.T, first, line string) {
		one := func(s string) string { return strings.ReplaceAll(s, "\n", " ") + "\n" }
		content := one(first) + strings.Repeat(one(line), 3)
		if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		l := session.NewLiveReader(path, partialShow)
		l.Poll()
		at, parts, _ := l.Streaming()
		for _, p := range parts {
			if len(p.Text) > 2*partialShow {
				t.Fatalf("a part keeps %d bytes", len(p.Text))
			}
		}
		for _, p := range livePartial(l, at).Parts {
			if len(p.Text) > partialShow {
				t.Fatalf("a part shows %d bytes", len(p.Text))
			}
		}
	})
}
