package executor

import "context"

// readOnlyKey marks a context whose commands must not write the workspace.
type readOnlyKey struct{}

// ReadOnlyContext returns ctx marked so that the commands a tool runs
// with it set RunOptions.ReadOnly: the gate marks the context of a bash
// call the policy allowed only because it reads.
func ReadOnlyContext(ctx context.Context) context.Context {
	return context.WithValue(ctx, readOnlyKey{}, true)
}

// IsReadOnly reports whether ctx was marked by ReadOnlyContext.
func IsReadOnly(ctx context.Context) bool {
	ro, _ := ctx.Value(readOnlyKey{}).(bool)
	return ro
}
