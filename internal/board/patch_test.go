package board

import (
	"reflect"
	"slices"
	"testing"
	"time"
)

func ptr[T any](v T) *T { return &v }

func TestProjectPatch_Apply(t *testing.T) {
	base := Project{Slug: "demo", Name: "Demo", Repo: "/r", DefaultBranch: "main", Agent: AgentSettings{Model: "anthropic/claude-sonnet-4-5"}}
	tests := []struct {
		name    string
		patch   ProjectPatch
		changed []string
		errCode string
		check   func(Project) bool
	}{
		{"nothing", ProjectPatch{}, nil, "", nil},
		{"same values", ProjectPatch{Name: ptr("Demo"), Repo: ptr("/r")}, nil, "", nil},
		{"name and budget", ProjectPatch{Name: ptr("New"), BudgetUSD: ptr(2.5)}, []string{"name", "budgetUsd"}, "",
			func(p Project) bool { return p.Name == "New" && p.Agent.BudgetUSD == 2.5 }},
		{"agent settings", ProjectPatch{TakeBacklog: ptr(true), PermissionMode: ptr(ModePlan), DailyTokens: ptr(int64(9))},
			[]string{"dailyTokens", "takeBacklog", "permissionMode"}, "",
			func(p Project) bool { return p.Agent.TakeBacklog && p.Agent.PermissionMode == ModePlan }},
		{"invalid name", ProjectPatch{Name: ptr(""), Model: ptr("openai/gpt-5")}, nil, EINVALID, nil},
		{"negative budget", ProjectPatch{BudgetUSD: ptr(-1.0)}, nil, EINVALID, nil},
		{"unknown mode", ProjectPatch{PermissionMode: ptr(PermissionMode("yolo"))}, nil, EINVALID, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := base
			changed, err := tt.patch.Apply(&p)
			if tt.errCode != "" {
				if ErrorCode(err) != tt.errCode {
					t.Fatalf("err = %v, want code %s", err, tt.errCode)
				}
				if !reflect.DeepEqual(p, base) {
					t.Errorf("a refused patch changed the project: %+v", p)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(changed, tt.changed) {
				t.Errorf("changed = %v, want %v", changed, tt.changed)
			}
			if tt.check != nil && !tt.check(p) {
				t.Errorf("project after the patch: %+v", p)
			}
			if len(changed) == 0 && !reflect.DeepEqual(p, base) {
				t.Errorf("a patch that changed nothing changed %+v", p)
			}
		})
	}
	if !(ProjectPatch{}).IsZero() || (ProjectPatch{Name: ptr("x")}).IsZero() {
		t.Error("IsZero misjudges")
	}
}

func TestTicketPatch_Apply(t *testing.T) {
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	base := func() Ticket {
		return Ticket{ProjectSlug: "demo", Number: 3, Title: "T", State: Backlog, Priority: 2, Criteria: []string{"a"}, UpdatedAt: at}
	}
	t.Run("fields", func(t *testing.T) {
		tk := base()
		changed, err := TicketPatch{Title: ptr("New"), Priority: ptr(0), Criteria: &[]string{"a", "b"}, IfUpdatedAt: ptr(at)}.Apply(&tk)
		if err != nil {
			t.Fatal(err)
		}
		if want := []string{"title", "priority", "criteria"}; !slices.Equal(changed, want) {
			t.Errorf("changed = %v, want %v", changed, want)
		}
		if tk.Title != "New" || tk.Priority != 0 || !slices.Equal(tk.Criteria, []string{"a", "b"}) {
			t.Errorf("ticket = %+v", tk)
		}
	})
	t.Run("stale version", func(t *testing.T) {
		tk := base()
		_, err := TicketPatch{Title: ptr("New"), IfUpdatedAt: ptr(at.Add(-time.Second))}.Apply(&tk)
		if ErrorCode(err) != ECONFLICT || tk.Title != "T" {
			t.Errorf("err = %v, title %q; want a conflict and no change", err, tk.Title)
		}
	})
	t.Run("invalid", func(t *testing.T) {
		tk := base()
		_, err := TicketPatch{Title: ptr("two\nlines"), Priority: ptr(9)}.Apply(&tk)
		if ErrorCode(err) != EINVALID || tk.Title != "T" || tk.Priority != 2 {
			t.Errorf("err = %v, ticket %+v; want invalid and no change", err, tk)
		}
	})
	t.Run("empty criteria", func(t *testing.T) {
		tk := base()
		changed, err := TicketPatch{Criteria: &[]string{}}.Apply(&tk)
		if err != nil || len(changed) != 1 || tk.Criteria == nil || len(tk.Criteria) != 0 {
			t.Errorf("changed %v, err %v, criteria %#v", changed, err, tk.Criteria)
		}
	})
	if !(TicketPatch{}).IsZero() || (TicketPatch{Plan: ptr("")}).IsZero() {
		t.Error("IsZero misjudges")
	}
}

func TestNewTicket(t *testing.T) {
	got, err := NewTicket(Ticket{ProjectSlug: "demo", Title: "T"})
	if err != nil || got.State != Backlog || got.Criteria == nil {
		t.Fatalf("NewTicket = %+v, %v; want BACKLOG with an empty criteria list", got, err)
	}
	for _, s := range []State{Verification, Done} {
		if _, err := NewTicket(Ticket{ProjectSlug: "demo", Title: "T", State: s}); ErrorCode(err) != EINVALID {
			t.Errorf("start in %s: err = %v, want invalid", s, err)
		}
	}
	if _, err := NewTicket(Ticket{ProjectSlug: "demo", Title: "T", SubState: SubBlocked}); ErrorCode(err) != EINVALID {
		t.Errorf("start blocked: err = %v, want invalid", err)
	}
}

func TestMoveComment(t *testing.T) {
	back := MoveRequest{To: InProgress, Actor: Human, Feedback: "cover the quiet mode"}
	c, err := MoveComment(Verification, back, "ana")
	if err != nil || c == nil || c.Kind != KindFeedback || c.AuthorName != "ana" || c.Content != back.Feedback {
		t.Fatalf("MoveComment = %+v, %v; want ana's feedback", c, err)
	}
	if c, err := MoveComment(Research, MoveRequest{To: InProgress, Actor: Agent}, "bot"); c != nil || err != nil {
		t.Errorf("a move forward recorded %+v, %v", c, err)
	}
	var e error
	if _, e = MoveComment(Verification, MoveRequest{To: InProgress, Actor: Human}, "ana"); ErrorCode(e) != EINVALID {
		t.Errorf("feedback-less return: err = %v, want invalid", e)
	}
}
