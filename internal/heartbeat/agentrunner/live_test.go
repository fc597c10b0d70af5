package agentrunner_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"iter"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/executor"
	"github.com/bonsai-run/bonsai/internal/heartbeat"
	"github.com/bonsai-run/bonsai/internal/heartbeat/agentrunner"
	"github.com/bonsai-run/bonsai/internal/llm"
	"github.com/bonsai-run/bonsai/internal/llm/llmtest"
	"github.com/bonsai-run/bonsai/internal/session"
	"github.com/bonsai-run/bonsai/internal/tool"
	"github.com/bonsai-run/bonsai/internal/workspace"
)

// steppedModel plays a scripted model one stream event at a time: each
// content event waits for a value on step, as a slow provider would.
type steppedModel struct {
	inner llm.Model
	step  chan struct{}
}

func (m steppedModel) Stream(ctx context.Context, req llm.Request) iter.Seq2[llm.Event, error] {
	return func(yield func(llm.Event, error) bool) {
		for ev, err := range m.inner.Stream(ctx, req) {
			select {
			case <-m.step:
			case <-ctx.Done():
				return
			}
			if !yield(ev, err) {
				return
			}
		}
	}
}

// liveState is what a reader rebuilds from a live file.
type liveState struct {
	at    int64
	parts map[int]string // kind: text
	names map[int]string
	done  bool
}

func readLive(t *testing.T, path string) (liveState, bool) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		return liveState{}, false
	}
	st := liveState{parts: map[int]string{}, names: map[int]string{}}
	sc := bufio.NewScanner(bytes.NewReader(b))
	for i := 0; sc.Scan(); i++ {
		var ln struct {
			Type, Kind, Name, D string
			At                  int64
			I                   int
		}
		if err := json.Unmarshal(sc.Bytes(), &ln); err != nil {
			t.Fatalf("live line %d %q: %v", i, sc.Text(), err)
		}
		switch {
		case i == 0 && ln.Type != "message":
			t.Fatalf("live file starts with %q", sc.Text())
		case ln.Type == "message":
			if i != 0 {
				t.Fatalf("message line %d inside a file", i)
			}
			st.at = ln.At
		case ln.Type == "delta":
			st.parts[ln.I] += ln.D
			if ln.Name != "" {
				st.names[ln.I] = ln.Name
			}
		case ln.Type == "done":
			st.done = true
		}
	}
	return st, true
}

// waitLive polls the live file until ok accepts it.
func waitLive(t *testing.T, path, what string, ok func(liveState) bool) liveState {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		st, found := readLive(t, path)
		if found && ok(st) {
			return st
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: live file %+v (exists %v)", what, st, found)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func TestLive_StreamsTheMessageBeingWritten(t *testing.T) {
	t.Parallel()
	thinking := "The flag needs a test first."
	text := strings.Repeat("Streaming a long answer, word by word. ", 40)
	args := `{"path":"main.go","content":"` + strings.Repeat("x", 200) + `"}`
	first := llm.Message{Role: llm.RoleAssistant, Usage: &llm.Usage{Input: 10, Output: 10},
		Content: []llm.Part{{Type: llm.PartThinking, Thinking: thinking}, llm.Text(text), llm.ToolCall("c1", "write", []byte(args))}}
	second := llm.Message{Role: llm.RoleAssistant, Content: []llm.Part{llm.Text("All done.")}, Usage: &llm.Usage{Input: 10, Output: 2}}
	scripted := llmtest.NewModel(
		llmtest.Turn{Message: first, Events: llmtest.Events(first, 8)},
		llmtest.Turn{Message: second, Events: llmtest.Events(second, 4)})
	model := steppedModel{inner: scripted, step: make(chan struct{})}
	runner, err := agentrunner.New(agentrunner.Options{
		Model: func(id string) (llm.Model, llm.Info, error) {
			return model, llm.Info{ID: id, ContextWindow: 200000}, nil
		},
		CodingTools: func(_, _ executor.Executor) []tool.Tool { return nil },
	})
	if err != nil {
		t.Fatal(err)
	}
	transcript := filepath.Join(t.TempDir(), "sessions", "p1", "t1", "transcript.jsonl")
	livePath := session.LivePath(transcript)
	done := make(chan heartbeat.Outcome)
	go func() {
		out, err := runner.RunAgent(context.Background(), heartbeat.Job{
			Brief: heartbeat.Brief{Task: board.TaskImplement, Project: board.Project{Slug: "demo"},
				Ticket: board.Ticket{Number: 1}, Deadline: time.Now().Add(time.Minute)},
			Workspace: &workspace.Workspace{}, Model: "llmtest/stepped", SessionFile: transcript})
		if err != nil {
			t.Error(err)
		}
		done <- out
	}()
	events := llmtest.Events(first, 8)
	step := func(n int) {
		for range n {
			model.step <- struct{}{}
		}
	}

	// Thinking, then about half the text: the live file holds exactly that
	// much, written by the runner's timer while the model is silent.
	thinkingEvents, textHalf := 0, 0
	for i, ev := range events {
		if ev.Type == llm.EventThinkingEnd {
			thinkingEvents = i + 1
			break
		}
	}
	step(thinkingEvents)
	var sofar strings.Builder
	for _, ev := range events[thinkingEvents:] {
		step(1)
		textHalf++
		sofar.WriteString(ev.Delta)
		if sofar.Len() > len(text)/2 {
			break
		}
	}
	fi, err := os.Stat(transcript)
	if err != nil {
		t.Fatal(err)
	}
	st := waitLive(t, livePath, "half the text", func(s liveState) bool { return s.parts[1] == sofar.String() })
	if st.at != fi.Size() || st.parts[0] != thinking || st.done {
		t.Fatalf("mid-stream live file: at %d (transcript %d bytes), thinking %q, done %v", st.at, fi.Size(), st.parts[0], st.done)
	}
	if b, _ := os.ReadFile(transcript); bytes.Contains(b, []byte("Streaming a long answer")) {
		t.Fatal("the transcript holds the message before it is complete")
	}

	// The tool call's name shows before its arguments are complete.
	rest := events[thinkingEvents+textHalf:]
	callStart := 0
	for i, ev := range rest {
		if ev.Type == llm.EventToolCallStart {
			callStart = i
			break
		}
	}
	step(callStart + 3) // the name and two argument deltas
	st = waitLive(t, livePath, "the tool call", func(s liveState) bool {
		return s.names[2] == "write" && s.parts[2] == args[:16]
	})
	if st.parts[1] != text {
		t.Fatalf("text after it ended: %q", st.parts[1])
	}

	// The message completes: the live file says so, and the transcript has
	// the complete message at the offset the live file named.
	step(len(rest) - callStart - 3 + 1) // the remaining events and done
	st = waitLive(t, livePath, "the message ends", func(s liveState) bool { return s.done })
	if st.parts[2] != args {
		t.Fatalf("arguments %q", st.parts[2])
	}
	b, _ := os.ReadFile(transcript)
	line, _, _ := bytes.Cut(b[st.at:], []byte("\n"))
	var e session.Entry
	if err := json.Unmarshal(line, &e); err != nil || e.Message == nil || e.Message.Role != llm.RoleAssistant || e.Message.Content[1].Text != text {
		t.Fatalf("the transcript entry at %d is %s (%v)", st.at, line, err)
	}
	firstAt := st.at

	// The next message gets a new file, after the tool result.
	step(2) // text_start and the first delta
	st = waitLive(t, livePath, "the second message", func(s liveState) bool { return s.at > firstAt && s.parts[0] == "All " })
	step(len(llmtest.Events(second, 4)) - 2 + 1)
	<-done
	if _, err := os.Stat(livePath); !os.IsNotExist(err) {
		t.Fatalf("the live file outlives the run: %v", err)
	}
	if _, err := os.Stat(livePath + ".tmp"); !os.IsNotExist(err) {
		t.Fatalf("a temporary live file is left: %v", err)
	}
}
