package board

import (
	"testing"
	"time"
)

func TestPickTicket(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	at := func(min int) time.Time { return t0.Add(time.Duration(min) * time.Minute) }
	tk := func(n int, st State, sub SubState, prio, created, updated int) Ticket {
		return Ticket{Number: n, State: st, SubState: sub, Priority: prio, CreatedAt: at(created), UpdatedAt: at(updated)}
	}
	tests := []struct {
		name        string
		cands       []Candidate
		wantNum     int
		wantClass   PickClass
		takeBacklog bool
	}{
		{"empty board", nil, 0, ClassNone, false},
		{"only backlog, verification and done", []Candidate{
			{Ticket: tk(1, Backlog, SubNone, 0, 0, 0)},
			{Ticket: tk(2, Verification, SubNone, 0, 0, 0)},
			{Ticket: tk(3, Done, SubNone, 0, 0, 0)},
		}, 0, ClassNone, false},
		{"blocked is skipped even with a human comment", []Candidate{
			{Ticket: tk(1, InProgress, SubBlocked, 0, 0, 0), LastHumanComment: at(5)},
		}, 0, ClassNone, false},
		{"human reply beats everything", []Candidate{
			{Ticket: tk(1, InProgress, SubReturned, 0, 0, 9)},
			{Ticket: tk(2, Research, SubNone, 4, 0, 0), LastHumanComment: at(1)},
		}, 2, ClassHumanReply, false},
		{"human replies: priority, then newest comment", []Candidate{
			{Ticket: tk(1, Research, SubNone, 2, 0, 0), LastHumanComment: at(1)},
			{Ticket: tk(2, InProgress, SubNone, 2, 0, 0), LastHumanComment: at(3)},
			{Ticket: tk(3, InProgress, SubNone, 3, 0, 0), LastHumanComment: at(9)},
		}, 2, ClassHumanReply, false},
		{"human comment on backlog does not count", []Candidate{
			{Ticket: tk(1, Backlog, SubNone, 0, 0, 0), LastHumanComment: at(1)},
			{Ticket: tk(2, Research, SubNone, 4, 0, 0)},
		}, 2, ClassResearch, false},
		{"returned newest first", []Candidate{
			{Ticket: tk(1, InProgress, SubReturned, 1, 0, 1)},
			{Ticket: tk(2, InProgress, SubReturned, 1, 0, 5)},
			{Ticket: tk(3, InProgress, SubNone, 0, 0, 0)},
		}, 2, ClassReturned, false},
		{"in progress least recently updated first", []Candidate{
			{Ticket: tk(1, InProgress, SubNone, 2, 0, 8)},
			{Ticket: tk(2, InProgress, SubNone, 2, 0, 3)},
			{Ticket: tk(3, Research, SubNone, 0, 0, 0)},
		}, 2, ClassInProgress, false},
		{"in progress priority first", []Candidate{
			{Ticket: tk(1, InProgress, SubNone, 3, 0, 1)},
			{Ticket: tk(2, InProgress, SubNone, 1, 0, 8)},
		}, 2, ClassInProgress, false},
		{"research oldest first", []Candidate{
			{Ticket: tk(1, Research, SubNone, 2, 5, 0)},
			{Ticket: tk(2, Research, SubNone, 2, 2, 9)},
			{Ticket: tk(3, Research, SubBlocked, 2, 0, 0)},
		}, 2, ClassResearch, false},
		{"tie broken by number", []Candidate{
			{Ticket: tk(7, Research, SubNone, 2, 1, 1)},
			{Ticket: tk(4, Research, SubNone, 2, 1, 1)},
		}, 4, ClassResearch, false},
		{"backlog taken when the project says so: priority, then oldest", []Candidate{
			{Ticket: tk(1, Backlog, SubNone, 3, 0, 0)},
			{Ticket: tk(2, Backlog, SubNone, 1, 5, 0), LastHumanComment: at(9)},
			{Ticket: tk(3, Backlog, SubNone, 1, 2, 7)},
			{Ticket: tk(4, Verification, SubNone, 0, 0, 0)},
		}, 3, ClassBacklog, true},
		{"backlog comes last", []Candidate{
			{Ticket: tk(1, Backlog, SubNone, 0, 0, 0)},
			{Ticket: tk(2, Research, SubNone, 4, 9, 9)},
		}, 2, ClassResearch, true},
		{"blocked backlog is skipped", []Candidate{
			{Ticket: tk(1, Backlog, SubBlocked, 0, 0, 0)},
		}, 0, ClassNone, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, ok := PickTicket(tt.cands, tt.takeBacklog)
			if tt.wantNum == 0 {
				if ok {
					t.Fatalf("picked #%d (%v), want nothing", p.Ticket.Number, p.Class)
				}
				return
			}
			if !ok || p.Ticket.Number != tt.wantNum || p.Class != tt.wantClass {
				t.Fatalf("picked #%d (%v, ok=%v), want #%d (%v)", p.Ticket.Number, p.Class, ok, tt.wantNum, tt.wantClass)
			}
		})
	}
}

func TestPickClass_String(t *testing.T) {
	for c := ClassNone; c <= ClassResearch; c++ {
		if c.String() == "" {
			t.Errorf("class %d has no description", c)
		}
	}
}

func TestSortQueue(t *testing.T) {
	picks := []Pick{
		{Ticket: Ticket{ProjectSlug: "b", Priority: 2}, Class: ClassResearch},
		{Ticket: Ticket{ProjectSlug: "a", Priority: 2}, Class: ClassResearch},
		{Ticket: Ticket{ProjectSlug: "c", Priority: 4}, Class: ClassHumanReply},
		{Ticket: Ticket{ProjectSlug: "d", Priority: 0}, Class: ClassResearch},
	}
	SortQueue(picks)
	var got string
	for _, p := range picks {
		got += p.Ticket.ProjectSlug
	}
	if got != "cdab" {
		t.Fatalf("queue order %s, want cdab", got)
	}
}
