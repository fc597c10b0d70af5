package executor

import "context"

// markKey holds the run mark of a context (WithMark).
type markKey struct{}

// Marker is an executor whose commands carry KEY=VALUE marks in their
// environment (local.Executor.Mark, sandbox.Executor.Mark), so that what
// they leave running can be found and ended by its mark.
type Marker interface{ Mark(kv string) }

// WithMark returns ctx carrying the KEY=VALUE mark of the run it prepares:
// whoever opens the run's executor with it (workspace.Provider.Prepare)
// marks the executor before its first command, so a sandbox started for
// the checkout already carries the mark and is kept for the run instead
// of being started again once marked.
func WithMark(ctx context.Context, kv string) context.Context {
	return context.WithValue(ctx, markKey{}, kv)
}

// MarkOf is the mark WithMark put on ctx, "" when none.
func MarkOf(ctx context.Context) string {
	kv, _ := ctx.Value(markKey{}).(string)
	return kv
}

// ApplyMark marks ex with ctx's mark (MarkOf) when there is one and ex is
// a Marker.
func ApplyMark(ctx context.Context, ex Executor) {
	if kv := MarkOf(ctx); kv != "" {
		if m, ok := ex.(Marker); ok {
			m.Mark(kv)
		}
	}
}

// Contained is an executor whose Close ends every process its commands
// started, wherever they went (setsid, double forks): a sandbox whose PID
// namespace ends with it. After Close nothing carries its marks, so the
// scan of the process table that finds what a run left running
// (local.KillMarked) would find nothing and is not needed.
type Contained interface {
	// ContainsProcesses reports whether Close ends them all.
	ContainsProcesses() bool
}

// ContainsProcesses reports whether ex is Contained and ends every
// process of its commands at Close.
func ContainsProcesses(ex Executor) bool {
	c, ok := ex.(Contained)
	return ok && c.ContainsProcesses()
}
