package storetest

import (
	"testing"
	"time"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/store"
)

var landingCases = []testCase{
	{"SaveAndRead", testLandingSaveAndRead},
	{"Errors", testLandingErrors},
	{"List", testLandingList},
}

func testLandingSaveAndRead(t *testing.T, s store.Store, clock *clock) {
	ctx := t.Context()
	mustProject(t, s, "demo")
	tk := ticketIn(t, s, "demo", board.InProgress)

	_, err := s.Landing(ctx, tk.Ref())
	wantCode(t, err, board.ENOTFOUND, "no landing")

	clock.tick()
	before := lastEventID(t, s)
	in := board.Landing{Ref: tk.Ref(), Mode: board.LandPR, Branch: "bonsai/1-a-ticket", Forge: "github",
		PRNumber: 12, PRURL: "https://github.com/o/r/pull/12", PRState: board.PROpen, Checks: board.ChecksPending,
		HeadSHA: "abc123", ETag: `W/"e1"`, ReviewCursor: "2026-11-01T00:00:00Z"}
	got, err := s.SaveLanding(ctx, in)
	if err != nil {
		t.Fatal(err)
	}
	want := in
	want.UpdatedAt = clock.Now()
	same(t, "saved landing", got, want)
	same(t, "landing read back", mustLanding(t, s, tk.Ref()), got)
	es := wantEvents(t, s, before, board.EventLandingUpdated)
	if len(es) == 1 && es[0].TicketID != tk.ID {
		t.Errorf("event ticket %q, want %q", es[0].TicketID, tk.ID)
	}

	// Saving the same landing changes nothing.
	clock.tick()
	before = lastEventID(t, s)
	again, err := s.SaveLanding(ctx, in)
	if err != nil {
		t.Fatal(err)
	}
	same(t, "unchanged landing", again, got)
	wantEvents(t, s, before)

	// Merged: the commit and its time replace the open pull request.
	clock.tick()
	landed := clock.Now().Add(-time.Second)
	in.PRState, in.Checks, in.Commit, in.LandedAt = board.PRMerged, board.ChecksSuccess, "def456", landed
	got, err = s.SaveLanding(ctx, in)
	if err != nil {
		t.Fatal(err)
	}
	if !got.LandedAt.Equal(landed) || !got.UpdatedAt.Equal(clock.Now()) || got.Commit != "def456" {
		t.Errorf("merged landing = %+v, want commit def456 landed at %v, updated at %v", got, landed, clock.Now())
	}
	same(t, "merged landing read back", mustLanding(t, s, tk.Ref()), got)

	// A failure to land is kept with its text, lines and all.
	in.Error = "push refused: the branch is protected\n\nAllow the push, or land with a pull request."
	got, err = s.SaveLanding(ctx, in)
	if err != nil {
		t.Fatal(err)
	}
	same(t, "failed landing read back", mustLanding(t, s, tk.Ref()), got)
}

func testLandingErrors(t *testing.T, s store.Store, clock *clock) {
	ctx := t.Context()
	mustProject(t, s, "demo")
	tk := ticketIn(t, s, "demo", board.Backlog)
	before := lastEventID(t, s)

	_, err := s.SaveLanding(ctx, board.Landing{Ref: board.Ref{Project: "demo", Number: 99}, Mode: board.LandMerge})
	wantCode(t, err, board.ENOTFOUND, "")
	_, err = s.SaveLanding(ctx, board.Landing{Ref: board.Ref{Project: "nope", Number: 1}, Mode: board.LandMerge})
	wantCode(t, err, board.ENOTFOUND, "")
	_, err = s.Landing(ctx, board.Ref{Project: "demo", Number: 99})
	wantCode(t, err, board.ENOTFOUND, "")

	for _, bad := range []board.Landing{
		{Ref: tk.Ref(), Mode: board.LandAuto},
		{Ref: tk.Ref(), Mode: "ship"},
		{Ref: tk.Ref(), Mode: board.LandPR, PRState: "draft"},
		{Ref: tk.Ref(), Mode: board.LandPR, Checks: "green"},
		{Ref: tk.Ref(), Mode: board.LandPR, Forge: "bitbucket"},
		{Ref: tk.Ref(), Mode: board.LandMerge, Branch: "bad..branch"},
	} {
		_, err := s.SaveLanding(ctx, bad)
		wantCode(t, err, board.EINVALID, "")
	}
	_, err = s.Landing(ctx, tk.Ref())
	wantCode(t, err, board.ENOTFOUND, "no landing")
	wantEvents(t, s, before)
}

func testLandingList(t *testing.T, s store.Store, clock *clock) {
	ctx := t.Context()
	mustProject(t, s, "demo")
	mustProject(t, s, "web")
	a := ticketIn(t, s, "demo", board.InProgress)
	b := ticketIn(t, s, "demo", board.InProgress)
	c := ticketIn(t, s, "web", board.InProgress)
	save := func(l board.Landing) board.Landing {
		t.Helper()
		got, err := s.SaveLanding(ctx, l)
		if err != nil {
			t.Fatal(err)
		}
		return got
	}
	lc := save(board.Landing{Ref: c.Ref(), Mode: board.LandPR, Forge: "gitlab", PRNumber: 3, PRState: board.PROpen})
	lb := save(board.Landing{Ref: b.Ref(), Mode: board.LandMerge, Commit: "abc", LandedAt: clock.Now()})
	la := save(board.Landing{Ref: a.Ref(), Mode: board.LandPR, Forge: "github", PRNumber: 7, PRState: board.PROpen})

	all, err := s.Landings(ctx, store.LandingFilter{})
	if err != nil {
		t.Fatal(err)
	}
	same(t, "all landings", all, []board.Landing{la, lb, lc})
	demo, err := s.Landings(ctx, store.LandingFilter{ProjectSlug: "demo"})
	if err != nil {
		t.Fatal(err)
	}
	same(t, "demo's landings", demo, []board.Landing{la, lb})
	open, err := s.Landings(ctx, store.LandingFilter{OpenPRs: true})
	if err != nil {
		t.Fatal(err)
	}
	same(t, "open pull requests", open, []board.Landing{la, lc})
	none, err := s.Landings(ctx, store.LandingFilter{ProjectSlug: "web", OpenPRs: true})
	if err != nil || len(none) != 1 {
		t.Errorf("web's open pull requests = %v, %v; want one", none, err)
	}
	_, err = s.Landings(ctx, store.LandingFilter{ProjectSlug: "nope"})
	wantCode(t, err, board.ENOTFOUND, "")
}

// mustLanding reads a ticket's landing or fails the test.
func mustLanding(t *testing.T, s store.Store, ref board.Ref) board.Landing {
	t.Helper()
	l, err := s.Landing(t.Context(), ref)
	if err != nil {
		t.Fatalf("Landing(%s): %v", ref, err)
	}
	return l
}
