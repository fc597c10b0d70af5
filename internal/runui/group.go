package runui

import "sync"

// group owns goroutines: Go starts one, Wait returns when all have ended.
type group struct{ wg sync.WaitGroup }

// Go runs f in a goroutine of the group.
func (g *group) Go(f func()) {
	g.wg.Add(1)
	go func() {
		defer g.wg.Done()
		f()
	}()
}

// Wait waits for every goroutine of the group to end.
func (g *group) Wait() { g.wg.Wait() }
