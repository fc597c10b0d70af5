package notify_test

import (
	"strings"
	"testing"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/notify"
)

// TestMessages: every kind has a subject naming the ticket (or project)
// and a body that says what a person can do.
func TestMessages(t *testing.T) {
	base := board.Notification{Project: "demo", Ticket: "demo#3", Title: "Pick a port", Text: "the text", RunStat: "timeout", CostUSD: 1.5}
	want := map[board.NotifyKind][2]string{
		board.NotifyQuestion:  {"Question on demo#3 “Pick a port”", "bonsai comment add demo#3"},
		board.NotifyApproval:  {"Approval needed on demo#3", "bonsai ticket allow demo#3"},
		board.NotifyReview:    {"Ready for review: demo#3", "bonsai ticket approve demo#3"},
		board.NotifyRunFailed: {"Run timeout on demo#3", "the text"},
		board.NotifyBudget:    {"Budget reached on demo#3", "$1.50"},
		board.NotifyBlocked:   {"Agents of demo cannot run", "the text"},
	}
	for _, k := range board.NotifyKinds() {
		n := base
		n.Kind = k
		m := notify.NewMessage(n)
		if !strings.HasPrefix(m.Subject, want[k][0]) || !strings.Contains(m.Body, want[k][1]) {
			t.Errorf("%s: subject %q, body %q; want %q and %q", k, m.Subject, m.Body, want[k][0], want[k][1])
		}
	}
}
