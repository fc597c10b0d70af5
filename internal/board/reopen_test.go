package board

import (
	"errors"
	"strings"
	"testing"
)

func TestCheckLeaveDone(t *testing.T) {
	t.Parallel()
	done := Ticket{ProjectSlug: "demo", Number: 3, Title: "t", State: Done}
	for _, c := range []struct {
		name    string
		t       Ticket
		l       Landing
		to      State
		refused bool
	}{
		{"landed commit", done, Landing{Commit: "abc"}, Backlog, true},
		{"merged pull request", done, Landing{PRState: PRMerged}, Backlog, true},
		{"not landed", done, Landing{}, Backlog, false},
		{"open pull request", done, Landing{PRState: PROpen}, Backlog, false},
		{"not DONE", Ticket{ProjectSlug: "demo", Number: 3, State: Verification}, Landing{Commit: "abc"}, InProgress, false},
	} {
		err := CheckLeaveDone(c.t, c.l, MoveRequest{To: c.to, Actor: Human})
		var re *RuleError
		if got := errors.As(err, &re); got != c.refused {
			t.Errorf("%s: err = %v, refused want %v", c.name, err, c.refused)
		}
		if c.refused && !strings.Contains(err.Error(), "bonsai ticket reopen demo#3") {
			t.Errorf("%s: %v does not name the reopen", c.name, err)
		}
	}
}

func TestFollowUp_FitsTheLimits(t *testing.T) {
	t.Parallel()
	orig := Ticket{ProjectSlug: "demo", Number: 3, Title: strings.Repeat("é", MaxTitle/2), State: Done, Priority: 1,
		Description: strings.Repeat("line\n", MaxDescription/5)}
	f, err := FollowUp(orig, Landing{}, "", "", nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Title) > MaxTitle || !strings.HasPrefix(f.Title, "Follow-up: é") || !strings.HasSuffix(f.Title, "…") ||
		len(f.Description) > MaxDescription || f.State != Backlog || f.Priority != 1 {
		t.Errorf("follow-up: title %d bytes %q…, description %d bytes, %s, priority %d", len(f.Title), f.Title[:20], len(f.Description), f.State, f.Priority)
	}
	if _, err := FollowUp(Ticket{ProjectSlug: "demo", Number: 4, Title: "t", State: Verification}, Landing{}, "", "", nil); ErrorCode(err) != EREFUSED {
		t.Errorf("FollowUp of a VERIFICATION ticket: %v, want refused", err)
	}
}
