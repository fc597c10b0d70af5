package llm

import (
	"encoding/json"
	"strings"
	"testing"
)

// BenchmarkMessage_MarshalJSON encodes a 50 KB tool result, the largest
// message a tool returns, as the session file does once per message.
// Target: under 200 µs (about 50 KB at 250 MB/s or better).
func BenchmarkMessage_MarshalJSON(b *testing.B) {
	msg := ToolResultText("toolu_01", "read", strings.Repeat("\tfunc main() { fmt.Println(\"hello\") }\n", 1300), false)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := json.Marshal(msg); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkAccumulator_Apply folds a 4,000-delta text stream into a
// message. Target: under 1 ms (linear in the response, not quadratic).
func BenchmarkAccumulator_Apply(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		var a Accumulator
		a.Apply(Event{Type: EventTextStart})
		for range 4000 {
			a.Apply(Event{Type: EventTextDelta, Delta: "All work and no."})
		}
		a.Apply(Event{Type: EventTextEnd})
		if m := a.Message(); len(m.Content[0].Text) != 64000 {
			b.Fatal(len(m.Content[0].Text))
		}
	}
}
