package storetest

import (
	"testing"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/store"
)

var variantCases = []testCase{
	{"Create", testVariantsCreate},
	{"Refused", testVariantsRefused},
	{"Close", testVariantsClose},
	{"Fail", testVariantsFail},
}

// threeWays are the specs of the variant tests: two engines, two models.
var threeWays = []board.VariantSpec{
	{Engine: board.EngineBonsai, Model: "fake/one"},
	{Engine: board.EngineBonsai, Model: "fake/two"},
	{Engine: board.EngineClaudeCode, Model: "fake/one"},
}

func mustVariants(t *testing.T, s store.Store, ref board.Ref) []board.Variant {
	t.Helper()
	vs, err := s.CreateVariants(t.Context(), store.NewVariants{Ticket: ref, Specs: threeWays, BudgetUSD: 0.5, BudgetTokens: 1000, Actor: board.Human,
		Comment: board.Comment{AuthorType: board.System, AuthorName: "bonsai", Kind: board.KindStatus, Content: "three ways"}})
	if err != nil {
		t.Fatalf("CreateVariants(%s): %v", ref, err)
	}
	return vs
}

// testVariantsCreate: each variant is a ticket of its own in IN_PROGRESS
// with the ticket's criteria, the ticket waits for them, and both the
// ticket and a variant read the round.
func testVariantsCreate(t *testing.T, s store.Store, clock *clock) {
	mustProject(t, s, "demo")
	tk := mustTicket(t, s, board.Ticket{ProjectSlug: "demo", Title: "Add a flag", Criteria: []string{"it works"}, State: board.InProgress})
	vs := mustVariants(t, s, tk.Ref())
	if len(vs) != 3 {
		t.Fatalf("variants = %+v", vs)
	}
	for i, v := range vs {
		w := mustGet(t, s, v.Ref)
		if v.Ticket != tk.Ref() || v.Round != 1 || v.Number != i+1 || v.Spec() != threeWays[i] || v.State != board.VariantRunning ||
			v.BudgetUSD != 0.5 || v.BudgetTokens != 1000 {
			t.Errorf("variant %d = %+v", i+1, v)
		}
		if w.State != board.InProgress || len(w.Criteria) != 1 || w.Criteria[0] != "it works" || w.Title != board.VariantTitle(tk, i+1, threeWays[i]) {
			t.Errorf("variant ticket %d = %+v", i+1, w)
		}
	}
	ls, err := s.TicketLinks(t.Context(), tk.Ref())
	if err != nil {
		t.Fatal(err)
	}
	if ls.WaitingText() == "" {
		t.Errorf("%s does not wait for its variants: %+v", tk.Ref(), ls)
	}
	if picks := pickRefs(t, s, "demo"); picks[tk.Ref().String()] != board.ClassNone || len(picks) != 1 {
		t.Errorf("Pick = %v, want one variant", picks)
	}
	fromVariant, err := s.Variants(t.Context(), vs[1].Ref)
	if err != nil {
		t.Fatal(err)
	}
	same(t, "variants read from a variant", fromVariant, vs)
	all, err := s.ProjectVariants(t.Context(), "demo")
	if err != nil {
		t.Fatal(err)
	}
	same(t, "the project's variants", all, vs)
	if none, err := s.ProjectVariants(t.Context(), "nope"); err != nil || len(none) != 0 {
		t.Errorf("ProjectVariants of an unknown project = %+v, %v", none, err)
	}
	if none, err := s.Variants(t.Context(), mustTicket(t, s, board.Ticket{ProjectSlug: "demo", Title: "x"}).Ref()); err != nil || len(none) != 0 {
		t.Errorf("Variants of a plain ticket = %+v, %v", none, err)
	}
}

// testVariantsRefused: nothing runs twice. A ticket outside IN_PROGRESS,
// one whose variants are in flight, a variant, a ticket with a running
// run and a count out of bounds are refused, and create nothing.
func testVariantsRefused(t *testing.T, s store.Store, clock *clock) {
	mustProject(t, s, "demo")
	create := func(ref board.Ref, specs []board.VariantSpec) error {
		_, err := s.CreateVariants(t.Context(), store.NewVariants{Ticket: ref, Specs: specs, Actor: board.Human})
		return err
	}
	research := ticketIn(t, s, "demo", board.Research)
	wantCode(t, create(research.Ref(), threeWays), board.EREFUSED, "only a ticket in IN_PROGRESS")
	tk := ticketIn(t, s, "demo", board.InProgress)
	wantCode(t, create(tk.Ref(), threeWays[:1]), board.EINVALID, "give 2 to 5 variants")
	vs := mustVariants(t, s, tk.Ref())
	wantCode(t, create(tk.Ref(), threeWays), board.EREFUSED, "still in flight")
	wantCode(t, create(vs[0].Ref, threeWays), board.EREFUSED, "itself a variant")
	busy := ticketIn(t, s, "demo", board.InProgress)
	if _, err := s.StartRun(t.Context(), board.Run{TicketID: busy.ID, Task: board.TaskImplement}); err != nil {
		t.Fatal(err)
	}
	wantCode(t, create(busy.Ref(), threeWays), board.EREFUSED, "an agent is running on it")
	if n, err := s.CountTickets(t.Context(), store.TicketFilter{ProjectSlug: "demo"}); err != nil || n != 6 {
		t.Errorf("tickets = %d, %v; want 6 (3 tickets, 3 variants)", n, err)
	}
}

// testVariantsClose: choosing one closes the round, every variant ticket
// leaves the queue, the ticket waits no more, and a new round may start.
func testVariantsClose(t *testing.T, s store.Store, clock *clock) {
	mustProject(t, s, "demo")
	tk := ticketIn(t, s, "demo", board.InProgress)
	vs := mustVariants(t, s, tk.Ref())
	_, err := s.CloseVariants(t.Context(), tk.Ref(), 4, "not chosen")
	wantCode(t, err, board.ENOTFOUND, "no running variant 4")
	after, err := s.CloseVariants(t.Context(), tk.Ref(), 2, "variant 2 was chosen")
	if err != nil {
		t.Fatal(err)
	}
	for i, v := range after {
		want := board.VariantClosed
		if v.Number == 2 {
			want = board.VariantChosen
		}
		if v.State != want || v.Ref != vs[i].Ref {
			t.Errorf("variant %d after = %+v, want %s", v.Number, v, want)
		}
		if w := mustGet(t, s, v.Ref); w.State != board.Done {
			t.Errorf("variant ticket %s in %s, want DONE", w.Ref(), w.State)
		}
	}
	wantPick(t, s, "demo", mustGet(t, s, tk.Ref()), board.ClassInProgress)
	_, err = s.CloseVariants(t.Context(), tk.Ref(), 0, "again")
	wantCode(t, err, board.EREFUSED, "no variants in flight")
	next := mustVariants(t, s, tk.Ref())
	if next[0].Round != 2 {
		t.Errorf("second round = %+v", next[0])
	}
}

// testVariantsFail: a variant that cannot run is failed with the reason
// and leaves the queue; the others run on.
func testVariantsFail(t *testing.T, s store.Store, clock *clock) {
	mustProject(t, s, "demo")
	tk := ticketIn(t, s, "demo", board.InProgress)
	vs := mustVariants(t, s, tk.Ref())
	v, err := s.FailVariant(t.Context(), vs[2].Ref, "claude is not installed")
	if err != nil {
		t.Fatal(err)
	}
	if v.State != board.VariantFailed || v.Reason != "claude is not installed" || mustGet(t, s, vs[2].Ref).State != board.Done {
		t.Errorf("failed variant = %+v", v)
	}
	_, err = s.FailVariant(t.Context(), vs[2].Ref, "again")
	wantCode(t, err, board.ENOTFOUND, "no running variant")
	if got := readVariants(t, s, tk.Ref()); got[0].State != board.VariantRunning || got[2].State != board.VariantFailed {
		t.Errorf("variants = %+v", got)
	}
}

func readVariants(t *testing.T, s store.Store, ref board.Ref) []board.Variant {
	t.Helper()
	vs, err := s.Variants(t.Context(), ref)
	if err != nil {
		t.Fatal(err)
	}
	return vs
}
