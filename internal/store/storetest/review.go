package storetest

import (
	"strings"
	"testing"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/store"
)

var reviewCases = []testCase{
	{"RecordAndRead", testReviewRecordAndRead},
	{"Errors", testReviewErrors},
}

func testReviewRecordAndRead(t *testing.T, s store.Store, clock *clock) {
	ctx := t.Context()
	mustProject(t, s, "demo")
	tk := ticketIn(t, s, "demo", board.Verification)
	other := ticketIn(t, s, "demo", board.Verification)

	got, err := s.Review(ctx, tk.Ref())
	if err != nil || got != (board.Review{Ref: tk.Ref()}) {
		t.Fatalf("Review before any = %+v, %v; want a zero review", got, err)
	}
	clock.tick()
	in := board.Review{Ref: tk.Ref(), Base: strings.Repeat("a", 40), Tip: strings.Repeat("b", 40)}
	rec, err := s.SetReview(ctx, in)
	if err != nil {
		t.Fatal(err)
	}
	want := in
	want.RecordedAt = clock.Now()
	same(t, "recorded review", rec, want)
	got, err = s.Review(ctx, tk.Ref())
	if err != nil {
		t.Fatal(err)
	}
	same(t, "review read back", got, want)

	// A new record replaces the old one; another ticket's is its own.
	clock.tick()
	in.Tip = strings.Repeat("c", 64)
	if _, err := s.SetReview(ctx, in); err != nil {
		t.Fatal(err)
	}
	want.Tip, want.RecordedAt = in.Tip, clock.Now()
	got, _ = s.Review(ctx, tk.Ref())
	same(t, "replaced review", got, want)
	if o, err := s.Review(ctx, other.Ref()); err != nil || o.Tip != "" {
		t.Errorf("the other ticket's review = %+v, %v; want none", o, err)
	}
}

func testReviewErrors(t *testing.T, s store.Store, clock *clock) {
	ctx := t.Context()
	mustProject(t, s, "demo")
	tk := ticketIn(t, s, "demo", board.Verification)
	_, err := s.Review(ctx, board.Ref{Project: "demo", Number: 99})
	wantCode(t, err, board.ENOTFOUND, "demo#99 not found")
	good := strings.Repeat("a", 40)
	_, err = s.SetReview(ctx, board.Review{Ref: board.Ref{Project: "demo", Number: 99}, Base: good, Tip: good})
	wantCode(t, err, board.ENOTFOUND, "demo#99 not found")
	for _, bad := range []string{"", "HEAD", "refs/remotes/origin/main", strings.Repeat("A", 40), good[:12]} {
		_, err = s.SetReview(ctx, board.Review{Ref: tk.Ref(), Base: good, Tip: bad})
		wantCode(t, err, board.EINVALID, "review tip")
		_, err = s.SetReview(ctx, board.Review{Ref: tk.Ref(), Base: bad, Tip: good})
		wantCode(t, err, board.EINVALID, "review base")
	}
	if r, _ := s.Review(ctx, tk.Ref()); r.Tip != "" {
		t.Errorf("a refused review was recorded: %+v", r)
	}
}
