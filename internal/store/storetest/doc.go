// Package storetest is the contract every store.Store implementation must
// pass. An implementation's own tests call Run with a function that opens a
// fresh, empty store:
//
//	func TestContract(t *testing.T) {
//		storetest.Run(t, func(t *testing.T, now func() time.Time) store.Store {
//			db, err := sqlite.Open(t.Context(), filepath.Join(t.TempDir(), "bonsai.db"), sqlite.WithClock(now))
//			if err != nil {
//				t.Fatal(err)
//			}
//			return db
//		})
//	}
//
// The store must read the time from now only. That clock is the suite's: it
// stands still until a test moves it on by a millisecond (stores keep
// millisecond timestamps), so where a test depends on the order of two
// writes in time the order is fixed, and nothing waits. Subtests run in
// parallel, each on its own store.
package storetest
