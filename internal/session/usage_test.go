package session_test

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/bonsai-run/bonsai/internal/llm"
	"github.com/bonsai-run/bonsai/internal/session"
)

// An interrupted run is charged what the transcript recorded of it: the
// usage of the assistant messages written since it started, not those of
// earlier runs, user messages or messages without usage.
func TestUsageSince(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "transcript.jsonl")
	at := time.Date(2026, 1, 2, 3, 0, 0, 0, time.UTC)
	now := at
	s, err := session.Create(path, "/w", session.Options{Now: func() time.Time { return now }})
	if err != nil {
		t.Fatal(err)
	}
	assistant := func(in, out int64, cost float64) llm.Message {
		return llm.Message{Role: llm.RoleAssistant, Content: []llm.Part{llm.Text("ok")},
			Usage: &llm.Usage{Input: in, Output: out, CacheRead: 7, Cost: cost}}
	}
	add := func(m llm.Message) {
		t.Helper()
		if _, err := s.AppendMessage(m, nil); err != nil {
			t.Fatal(err)
		}
	}
	add(assistant(1000, 100, 1)) // an earlier run
	now = at.Add(time.Minute)
	start := now.Add(123 * time.Microsecond) // the store keeps milliseconds
	add(llm.UserText("go on"))
	add(assistant(200, 20, 0.25))
	now = now.Add(time.Second)
	add(llm.Message{Role: llm.RoleAssistant, Content: []llm.Part{llm.Text("no usage")}})
	add(assistant(300, 30, 0.5))
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}

	u, err := session.UsageSince(path, start)
	if err != nil {
		t.Fatal(err)
	}
	want := llm.Usage{Input: 500, Output: 50, CacheRead: 14, Cost: 0.75}
	if u != want {
		t.Errorf("usage = %+v, want %+v", u, want)
	}
	if u, err := session.UsageSince(filepath.Join(t.TempDir(), "none.jsonl"), start); err != nil || u != (llm.Usage{}) {
		t.Errorf("missing transcript: usage %+v, err %v; want none", u, err)
	}
}
