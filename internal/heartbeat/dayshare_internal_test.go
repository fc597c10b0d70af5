package heartbeat

import (
	"math"
	"testing"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/store"
)

// The shares of a project's runs at once never add up to more than the
// day has left, whatever order they start and end in; a day held whole
// lets no run start; a project without a daily cap is not cut.
func TestDayShares(t *testing.T) {
	t.Parallel()
	var d dayShares
	l := Limits{DailyUSD: 0.09, DailyTokens: 900}
	day := store.Spend{}
	near := func(a, b float64) bool { return math.Abs(a-b) < 1e-9 }
	b1, r1, ok1 := d.take("p", 3, l, day, Budget{USD: 1})
	b2, r2, ok2 := d.take("p", 3, l, day, Budget{})
	b3, _, ok3 := d.take("p", 3, l, day, Budget{})
	if !ok1 || !ok2 || !ok3 || !near(b1.USD, 0.03) || !near(b2.USD, 0.03) || !near(b3.USD, 0.03) || b1.Tokens != 300 {
		t.Fatalf("three shares = %+v %+v %+v", b1, b2, b3)
	}
	if !d.full("p", l, day) {
		t.Error("a day held whole is not full")
	}
	if _, _, ok := d.take("p", 3, l, day, Budget{}); ok {
		t.Error("a fourth share was given from a day held whole")
	}
	// The first run spent $0.02 and ended: its share returns, its spend
	// is the store's.
	r1()
	r1() // twice is once
	day = store.Spend{Runs: 1, Usage: board.Usage{CostUSD: 0.02, InputTokens: 100}}
	b4, _, ok := d.take("p", 3, l, day, Budget{})
	if !ok || !near(b4.USD, 0.01) || b4.Tokens != 200 {
		t.Errorf("share after one ended = %+v, %v; want the $0.01 and 200 tokens left", b4, ok)
	}
	r2()
	if b, _, ok := d.take("q", 2, Limits{}, day, Budget{USD: 5}); !ok || b.USD != 5 {
		t.Errorf("a project without a daily cap = %+v, %v; want its budget as it was", b, ok)
	}
}
