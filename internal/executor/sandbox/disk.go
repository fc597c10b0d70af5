package sandbox

import (
	"context"
	"errors"
	"sync"
	"time"
)

// diskTick is how often, at most, the disk use of a running command's
// workspace is measured; a walk taking more than 1/20 of it spaces the
// walks out, so that measuring never takes more than 5% of a core.
const diskTick = time.Second

// errDiskGrowth stops a command whose workspace grew past its bound.
var errDiskGrowth = errors.New("the workspace grew past its limit")

// diskGuard bounds how much the workspace and the clone's .git grow over
// an executor's life (Limits.DiskGrowth). Their use is the sum of the
// blocks of the files below them, walked without following a link (the
// agent writes these trees: nothing in them is taken as a path).
// Measuring costs a walk, so it is done when the executor's first
// command starts (the base), every diskTick while a command runs, and
// when one ends after a tick or with the file system's free space down
// by a quarter of the bound since the last walk (a statfs, cheap).
type diskGuard struct {
	dirs  []string
	limit int64

	mu       sync.Mutex
	base     int64         // use when the first command started; -1 before
	lastFree uint64        // free bytes of dirs[0]'s file system at the last walk
	every    time.Duration // the time between two walks while a command runs
}

func newDiskGuard(limit int64, dirs ...string) *diskGuard {
	var ds []string
	for _, d := range dirs {
		if d != "" {
			ds = append(ds, d)
		}
	}
	return &diskGuard{dirs: ds, limit: limit, base: -1, every: diskTick}
}

// usage is the bytes the files below g.dirs take on disk. g.mu is held.
func (g *diskGuard) usage() int64 {
	start := time.Now()
	defer func() { g.every = max(diskTick, 20*time.Since(start)) }()
	var n int64
	for _, d := range g.dirs {
		n += treeUsage(d)
	}
	return n
}

// free is the space left for an unprivileged user on g.dirs[0]'s file
// system.
func (g *diskGuard) free() uint64 { return freeBytes(g.dirs[0]) }

// begin measures the base on the executor's first command.
func (g *diskGuard) begin() {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.base < 0 {
		g.lastFree = g.free()
		g.base = g.usage()
	}
}

// grown measures the growth since the base.
func (g *diskGuard) grown() int64 {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.lastFree = g.free()
	return g.usage() - g.base
}

// suspect reports whether the file system's free space fell by a
// quarter of the bound since the last walk.
func (g *diskGuard) suspect() bool {
	g.mu.Lock()
	last := g.lastFree
	g.mu.Unlock()
	now := g.free()
	return now < last && int64(last-now) > g.limit/4
}

// watch cancels the returned context with errDiskGrowth when a tick
// finds the workspace grown past the bound; stop ends the watch.
func (g *diskGuard) watch(ctx context.Context) (context.Context, func()) {
	ctx, cancel := context.WithCancelCause(ctx)
	done := make(chan struct{})
	go func() {
		for {
			g.mu.Lock()
			t := time.NewTimer(g.every)
			g.mu.Unlock()
			select {
			case <-done:
				t.Stop()
				return
			case <-ctx.Done():
				t.Stop()
				return
			case <-t.C:
				if g.grown() > g.limit {
					cancel(errDiskGrowth)
					return
				}
			}
		}
	}()
	return ctx, func() {
		close(done)
		cancel(nil)
	}
}
