package board_test

import (
	"strings"
	"testing"
	"time"

	"github.com/bonsai-run/bonsai/internal/board"
)

func TestApprovalDecide(t *testing.T) {
	now := time.Date(2026, 3, 2, 9, 30, 0, 0, time.UTC)
	a := board.Approval{ID: "a1", Command: "touch x", Status: board.ApprovalPending}
	got, err := a.Decide(board.ApprovalDecision{Allow: true, Always: true, Note: " ok\r\nthanks ", By: "ana"}, now)
	if err != nil {
		t.Fatal(err)
	}
	if got.Status != board.ApprovalAllowed || !got.Always || got.Note != "ok\nthanks" || got.DecidedBy != "ana" || !got.DecidedAt.Equal(now) {
		t.Errorf("decided = %+v", got)
	}
	if !got.Grants() {
		t.Error("an always-approval does not grant")
	}
	if _, err := got.Decide(board.ApprovalDecision{By: "bob"}, now); board.ErrorCode(err) != board.ECONFLICT ||
		!strings.Contains(err.Error(), "already allowed by ana") {
		t.Errorf("second decision: %v, want a conflict naming ana", err)
	}
	denied, err := a.Decide(board.ApprovalDecision{By: "bob"}, now)
	if err != nil || denied.Status != board.ApprovalDenied || denied.Always || denied.Grants() {
		t.Errorf("denial = %+v, %v", denied, err)
	}
	once, _ := a.Decide(board.ApprovalDecision{Allow: true}, now)
	if !once.Grants() {
		t.Error("an unused once-approval does not grant")
	}
	once.Used = true
	if once.Grants() {
		t.Error("a used once-approval grants")
	}
}

func TestApprovalDecisionValidate(t *testing.T) {
	for _, tc := range []struct {
		d   board.ApprovalDecision
		msg string
	}{
		{board.ApprovalDecision{Always: true}, "always"},
		{board.ApprovalDecision{Allow: true, Note: strings.Repeat("x", board.MaxApprovalNote+1)}, "limit"},
		{board.ApprovalDecision{Note: "tab\there"}, "control character"},
		{board.ApprovalDecision{Note: "esc\x1b[2J"}, "control character"},
		{board.ApprovalDecision{Note: "bad \xff"}, "UTF-8"},
	} {
		err := tc.d.Validate()
		if board.ErrorCode(err) != board.EINVALID || !strings.Contains(err.Error(), tc.msg) {
			t.Errorf("Validate(%+v) = %v, want EINVALID saying %q", tc.d, err, tc.msg)
		}
	}
	if err := (board.ApprovalDecision{Allow: true, Note: "line one\r\nline two\n"}).Validate(); err != nil {
		t.Errorf("a note with newlines: %v", err)
	}
}

func TestRequestTextQuotesTheCommand(t *testing.T) {
	a := board.Approval{Command: "echo ```\n``` done", Rule: "ask-mode", Reason: "asks"}
	s := board.RequestText(a, board.Ref{Project: "demo", Number: 3})
	if !strings.Contains(s, "````sh\necho ```\n``` done\n````") {
		t.Errorf("request text does not fence the command beyond its backticks:\n%s", s)
	}
	for _, want := range []string{"ask-mode", "asks", "bonsai ticket allow demo#3", "bonsai ticket deny demo#3"} {
		if !strings.Contains(s, want) {
			t.Errorf("request text lacks %q:\n%s", want, s)
		}
	}
}

func TestApplyCommentPermission(t *testing.T) {
	tk := board.Ticket{State: board.InProgress}
	tk = board.ApplyComment(tk, board.Comment{AuthorType: board.Agent, Kind: board.KindPermission})
	if tk.SubState != board.SubBlocked {
		t.Errorf("after the agent's permission request: %q, want blocked", tk.SubState)
	}
	tk = board.ApplyComment(tk, board.Comment{AuthorType: board.Human, Kind: board.KindPermission})
	if tk.SubState != board.SubNone {
		t.Errorf("after the person's decision: %q, want none", tk.SubState)
	}
}
