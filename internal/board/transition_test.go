package board

import (
	"errors"
	"strings"
	"testing"
)

func TestCheckMove_Table(t *testing.T) {
	type tc struct {
		from  State
		to    State
		actor Actor
		ok    bool
	}
	allowed := map[[2]State][]Actor{
		{Backlog, Research}:        {Human},
		{Backlog, InProgress}:      {Human},
		{Research, Backlog}:        {Human},
		{Research, InProgress}:     {Human, Agent, System},
		{InProgress, Backlog}:      {Human},
		{InProgress, Research}:     {Human},
		{InProgress, Verification}: {Agent, System},
		{Verification, InProgress}: {Human, System},
		{Verification, Done}:       {Human},
		{Verification, Backlog}:    {Human},
		{Done, Backlog}:            {Human},
	}
	// Every (from, to, actor) combination: allowed exactly when listed
	// above; in a project whose agents take BACKLOG tickets, the runtime may
	// also move BACKLOG → RESEARCH; in a project where a person approves
	// each plan, only a person moves RESEARCH → IN_PROGRESS.
	for _, settings := range []AgentSettings{{}, {TakeBacklog: true}, {PermissionMode: ModePlan}} {
		for _, from := range States {
			for _, to := range States {
				for _, actor := range []Actor{Human, Agent, System} {
					want := false
					for _, a := range allowed[[2]State{from, to}] {
						want = want || a == actor
					}
					if settings.TakeBacklog && from == Backlog && to == Research && actor == System {
						want = true
					}
					if settings.PermissionMode == ModePlan && from == Research && to == InProgress && actor != Human {
						want = false
					}
					tk := Ticket{State: from, Plan: "a plan"}
					err := CheckMove(tk, MoveRequest{To: to, Actor: actor, Feedback: "fix it", Project: settings})
					if (err == nil) != want {
						t.Errorf("%s → %s by %s (%+v): err = %v, want allowed=%v", from, to, actor, settings, err, want)
					}
					if err != nil {
						var re *RuleError
						if !errors.As(err, &re) || ErrorCode(err) != EREFUSED {
							t.Errorf("%s → %s by %s: error %T is not a refused RuleError", from, to, actor, err)
						}
						if !strings.HasPrefix(err.Error(), string(from)+" → "+string(to)+" is not allowed; ") {
							t.Errorf("%s → %s: message %q does not name the move", from, to, err)
						}
					}
				}
			}
		}
	}
}

func TestCheckMove_Messages(t *testing.T) {
	tests := []struct {
		name string
		t    Ticket
		req  MoveRequest
		want string
	}{
		{"human to verification", Ticket{State: Backlog}, MoveRequest{To: Verification, Actor: Human},
			"BACKLOG → VERIFICATION is not allowed; a ticket reaches VERIFICATION only from IN_PROGRESS, by the agent"},
		{"agent approves", Ticket{State: Verification}, MoveRequest{To: Done, Actor: Agent},
			"VERIFICATION → DONE is not allowed; a ticket reaches DONE only from VERIFICATION, when a person approves it"},
		{"same state", Ticket{State: Research}, MoveRequest{To: Research, Actor: Human},
			"RESEARCH → RESEARCH is not allowed; the ticket is already in RESEARCH"},
		{"agent without plan", Ticket{State: Research}, MoveRequest{To: InProgress, Actor: Agent},
			"RESEARCH → IN_PROGRESS is not allowed; the agent must save a plan (ticket_plan) before it leaves RESEARCH"},
		{"return without feedback", Ticket{State: Verification}, MoveRequest{To: InProgress, Actor: Human, Feedback: "  "},
			"VERIFICATION → IN_PROGRESS is not allowed; sending work back needs feedback"},
		{"runtime takes backlog without the setting", Ticket{State: Backlog}, MoveRequest{To: Research, Actor: System},
			"BACKLOG → RESEARCH is not allowed; only a person takes a ticket out of BACKLOG, unless the project lets agents take BACKLOG tickets"},
		{"agent leaves research where plans need a person", Ticket{State: Research, Plan: "p"}, MoveRequest{To: InProgress, Actor: Agent, Project: AgentSettings{PermissionMode: ModePlan}},
			"RESEARCH → IN_PROGRESS is not allowed; in this project a person approves each plan: ask for approval with ticket_ask"},
		{"unknown state", Ticket{State: Backlog}, MoveRequest{To: "LIMBO", Actor: Human}, `unknown state "LIMBO"`},
		{"unknown actor", Ticket{State: Backlog}, MoveRequest{To: Research, Actor: "robot"}, `unknown actor "robot"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := CheckMove(tt.t, tt.req)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("CheckMove = %v, want %q", err, tt.want)
			}
		})
	}
	// A person may move RESEARCH → IN_PROGRESS without a plan.
	if err := CheckMove(Ticket{State: Research}, MoveRequest{To: InProgress, Actor: Human}); err != nil {
		t.Fatalf("human RESEARCH → IN_PROGRESS without plan: %v", err)
	}
}

func TestApplyMove_SubState(t *testing.T) {
	tests := []struct {
		from    State
		sub     SubState
		to      State
		wantSub SubState
	}{
		{Verification, SubNone, InProgress, SubReturned},
		{InProgress, SubReturned, Verification, SubNone},
		{InProgress, SubBlocked, Backlog, SubNone},
		{Backlog, SubNone, Research, SubNone},
	}
	for _, tt := range tests {
		got := ApplyMove(Ticket{State: tt.from, SubState: tt.sub}, MoveRequest{To: tt.to})
		if got.State != tt.to || got.SubState != tt.wantSub {
			t.Errorf("%s(%s) → %s: got %s(%s), want sub-state %q", tt.from, tt.sub, tt.to, got.State, got.SubState, tt.wantSub)
		}
	}
}

func TestApplyComment(t *testing.T) {
	tests := []struct {
		name string
		sub  SubState
		c    Comment
		want SubState
	}{
		{"human answer unblocks", SubBlocked, Comment{AuthorType: Human, Kind: KindNote}, SubNone},
		{"agent question blocks", SubNone, Comment{AuthorType: Agent, Kind: KindQuestion}, SubBlocked},
		{"agent status keeps", SubReturned, Comment{AuthorType: Agent, Kind: KindStatus}, SubReturned},
		{"human note keeps returned", SubReturned, Comment{AuthorType: Human, Kind: KindNote}, SubReturned},
	}
	for _, tt := range tests {
		if got := ApplyComment(Ticket{State: InProgress, SubState: tt.sub}, tt.c).SubState; got != tt.want {
			t.Errorf("%s: sub-state %q, want %q", tt.name, got, tt.want)
		}
	}
}
