package session_test

import (
	"bytes"
	"testing"

	"github.com/bonsai-run/bonsai/internal/llm"
	"github.com/bonsai-run/bonsai/internal/session"
)

// FuzzRead checks that no input makes the reader fail or panic, that what
// it returns is a well-formed tree, and that the context built from it
// answers every tool call.
func FuzzRead(f *testing.F) {
	f.Add([]byte(`{"type":"session","version":1,"id":"a","timestamp":"t","cwd":"."}` + "\n" +
		`{"type":"message","id":"1","parentId":null,"timestamp":"t","message":{"role":"user","content":[{"type":"text","text":"hi"}]}}` + "\n" +
		`{"type":"message","id":"2","parentId":"1","timestamp":"t","message":{"role":"assistant","content":[{"type":"toolCall","id":"c","name":"ls","arguments":{}}]}}` + "\n"))
	f.Add([]byte(`{"type":"compaction","id":"3","parentId":"2","timestamp":"t","summary":"s","firstKeptEntryId":"2","tokensBefore":5}` + "\n"))
	f.Add([]byte("{\"type\":\"label\",\"id\":\"1\",\"parentId\":\"1\"}\n\n\r\n{"))
	f.Fuzz(func(t *testing.T, data []byte) {
		_, ents, _, err := session.Read(bytes.NewReader(data))
		if err != nil {
			t.Fatalf("Read failed on an in-memory reader: %v", err)
		}
		seen := map[string]bool{}
		for _, e := range ents {
			if seen[e.ID] {
				t.Fatalf("duplicate id %q", e.ID)
			}
			if e.ParentID != "" && !seen[e.ParentID] {
				t.Fatalf("entry %q has parent %q not before it", e.ID, e.ParentID)
			}
			seen[e.ID] = true
		}
		if len(ents) == 0 {
			return
		}
		// The path of the last entry, walked like File.Context does.
		byID := map[string]session.Entry{}
		for _, e := range ents {
			byID[e.ID] = e
		}
		var rev []session.Entry
		for id := ents[len(ents)-1].ID; id != ""; id = byID[id].ParentID {
			rev = append(rev, byID[id])
		}
		path := make([]session.Entry, len(rev))
		for i := range rev {
			path[i] = rev[len(rev)-1-i]
		}
		c := session.BuildContext(path)
		answered := map[string]bool{}
		for i := len(c.Messages) - 1; i >= 0; i-- {
			m := c.Messages[i]
			if m.Role == llm.RoleToolResult {
				answered[m.ToolCallID] = true
			}
			if m.Role == llm.RoleAssistant {
				for _, call := range m.ToolCalls() {
					if !answered[call.ID] {
						t.Fatalf("tool call %q has no result in the context", call.ID)
					}
				}
			}
		}
	})
}
