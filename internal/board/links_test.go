package board

import (
	"strings"
	"testing"
)

func ref(n int) Ref { return Ref{Project: "demo", Number: n} }

// TestCheckLink names the shortest cycle a link would close, through
// blockers and parents alike (a parent waits for its sub-tickets), and
// lets links that close none through.
func TestCheckLink(t *testing.T) {
	t.Parallel()
	existing := []Link{
		{Ticket: ref(1), Other: ref(2), Kind: LinkBlockedBy}, // 1 waits for 2
		{Ticket: ref(3), Other: ref(2), Kind: LinkParent},    // 2 waits for 3
		{Ticket: ref(3), Other: ref(4), Kind: LinkBlockedBy}, // 3 waits for 4
		{Ticket: ref(1), Other: ref(4), Kind: LinkBlockedBy}, // 1 waits for 4
	}
	for _, c := range []struct {
		l    Link
		want string
	}{
		{Link{Ticket: ref(4), Other: ref(1), Kind: LinkBlockedBy}, "cycle: demo#4 → demo#1 → demo#4"},
		{Link{Ticket: ref(4), Other: ref(2), Kind: LinkBlockedBy}, "cycle: demo#4 → demo#2 → demo#3 → demo#4"},
		{Link{Ticket: ref(1), Other: ref(4), Kind: LinkParent}, "cycle: demo#4 → demo#1 → demo#4"},
		{Link{Ticket: ref(2), Other: ref(5), Kind: LinkBlockedBy}, ""},
		{Link{Ticket: ref(4), Other: ref(5), Kind: LinkParent}, ""},
		{Link{Ticket: ref(3), Other: ref(1), Kind: LinkParent}, "already a sub-ticket of demo#2"},
		{Link{Ticket: ref(5), Other: Ref{Project: "web", Number: 1}, Kind: LinkBlockedBy}, "different projects"},
	} {
		err := CheckLink(c.l, existing)
		if c.want == "" && err != nil || c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)) {
			t.Errorf("CheckLink(%+v) = %v, want %q", c.l, err, c.want)
		}
	}
}

// TestClassify_Waiting: a ticket that waits is never picked, whatever
// its class would be.
func TestClassify_Waiting(t *testing.T) {
	t.Parallel()
	for _, st := range []State{Backlog, Research, InProgress} {
		c := Candidate{Ticket: Ticket{State: st}, Waiting: true}
		if got := Classify(c, true); got != ClassNone {
			t.Errorf("a waiting ticket in %s is %v", st, got)
		}
	}
	ls := Links{BlockedBy: []LinkedTicket{{Ref: ref(2), State: Done}, {Ref: ref(3), State: Verification}},
		Children: []LinkedTicket{{Ref: ref(4), State: Research}}}
	if got := ls.WaitingText(); got != "waits for demo#3 (VERIFICATION), demo#4 (sub-ticket, RESEARCH)" {
		t.Errorf("WaitingText = %q", got)
	}
}
