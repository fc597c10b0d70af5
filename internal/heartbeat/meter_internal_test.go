package heartbeat

import (
	"testing"

	"github.com/bonsai-run/bonsai/internal/board"
)

// TestMeter counts a response once though the runner reports its usage
// twice, and sends where the run stands at each new one.
func TestMeter(t *testing.T) {
	t.Parallel()
	var sent []Progress
	m := &meter{send: func(p Progress) { sent = append(sent, p) }, base: Progress{Ticket: "demo#1", RunID: "r1"}}
	u1 := board.Usage{InputTokens: 10, OutputTokens: 5}
	u2 := board.Usage{InputTokens: 30, OutputTokens: 9}
	m.setUsage(u1)
	m.setUsage(u1)
	m.setUsage(u2)
	if len(sent) != 2 || sent[1].Turns != 2 || sent[1].Usage != u2 || sent[1].Ticket != "demo#1" {
		t.Fatalf("sent = %+v, want two responses, the last with its usage", sent)
	}
	if m.used() != u2 {
		t.Fatalf("used = %+v, want %+v", m.used(), u2)
	}
	end := &RunReport{Status: board.RunCompleted}
	m.report(end)
	if last := sent[len(sent)-1]; last.End != end || last.Turns != 2 {
		t.Fatalf("end = %+v, want the report with the turns", last)
	}
	(&meter{}).report(nil) // nobody listens: nothing to send
}
