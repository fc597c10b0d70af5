// Package storetest is the contract every store.Store implementation must
// pass. An implementation's own tests call Run with a function that opens a
// fresh, empty store:
//
//	func TestContract(t *testing.T) {
//		storetest.Run(t, func(t *testing.T) store.Store {
//			db, err := sqlite.Open(t.Context(), filepath.Join(t.TempDir(), "bonsai.db"))
//			if err != nil {
//				t.Fatal(err)
//			}
//			return db
//		})
//	}
//
// The suite uses the store's own clock. Where it depends on the order of two
// writes in time it waits a few milliseconds between them, since stores keep
// millisecond timestamps.
package storetest
