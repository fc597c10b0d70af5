package llm_test

import (
	"runtime"
	"testing"

	"github.com/bonsai-run/bonsai/internal/llm"
)

func TestEncodeCache_GetPut(t *testing.T) {
	var c llm.EncodeCache[string]
	msg := llm.Message{Role: llm.RoleUser, Content: []llm.Part{llm.Text("a"), llm.Text("b")}}
	if _, ok := c.Get(&msg); ok {
		t.Fatal("empty cache hit")
	}
	c.Put(&msg, "enc")
	copied := msg // messages are passed by value; the content is shared
	if v, ok := c.Get(&copied); !ok || v != "enc" {
		t.Fatalf("copy of the message: %q %v", v, ok)
	}
	tests := []struct {
		name   string
		change func(m llm.Message) llm.Message
	}{
		{"part replaced in place", func(m llm.Message) llm.Message { m.Content[1] = llm.Text("c"); return m }},
		{"shorter content", func(m llm.Message) llm.Message { m.Content = m.Content[:1]; return m }},
		{"new content array", func(m llm.Message) llm.Message {
			m.Content = []llm.Part{llm.Text("a"), llm.Text("b")}
			return m
		}},
		{"role", func(m llm.Message) llm.Message { m.Role = llm.RoleToolResult; return m }},
		{"error flag", func(m llm.Message) llm.Message { m.IsError = true; return m }},
		{"provider", func(m llm.Message) llm.Message { m.Provider = "openai"; return m }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := msg
			m.Content = append([]llm.Part(nil), msg.Content...)
			c.Put(&m, "before")
			changed := tt.change(m)
			if v, ok := c.Get(&changed); ok {
				t.Errorf("changed message hit %q", v)
			}
		})
	}
	var empty llm.Message
	c.Put(&empty, "x")
	if _, ok := c.Get(&empty); ok {
		t.Error("a message without content is not cached")
	}
}

func TestEncodeCache_SweepDropsCollected(t *testing.T) {
	var c llm.EncodeCache[[]byte]
	keep := llm.UserText("kept")
	c.Put(&keep, []byte("k"))
	for range 10 {
		m := llm.UserText("dropped")
		c.Put(&m, make([]byte, 1<<10))
	}
	runtime.GC()
	c.Sweep()
	if n := c.Len(); n != 1 {
		t.Errorf("%d entries after sweep, want 1", n)
	}
	if _, ok := c.Get(&keep); !ok {
		t.Error("live message dropped")
	}
	runtime.KeepAlive(keep)
}
