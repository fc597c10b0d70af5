package heartbeat

import (
	"context"
	"fmt"
	"strings"

	"github.com/bonsai-run/bonsai/internal/board"
)

// RefusalReporter is what a workspace's executor implements when its
// commands' network goes through an allow-listing proxy: the connections
// it refused since the last call, one line each ("evil.example:443, 3
// times: not on the allow list"), and how to allow a host.
type RefusalReporter interface {
	NetworkRefusals() (lines []string, hint string)
}

// maxRefusalLines bounds the refusals one comment lists.
const maxRefusalLines = 20

// reportRefusals posts, once per run, the connections the sandbox's proxy
// refused during it, so people see on the ticket why a download failed
// and how to allow the host.
func (r *runState) reportRefusals(ctx context.Context) {
	if r.ws == nil {
		return
	}
	rr, ok := r.ws.Exec.(RefusalReporter)
	if !ok {
		return
	}
	lines, hint := rr.NetworkRefusals()
	if len(lines) == 0 {
		return
	}
	var b strings.Builder
	b.WriteString("The sandbox's proxy refused connections during this run:\n\n")
	for i, l := range lines {
		if i == maxRefusalLines {
			fmt.Fprintf(&b, "- … and %d more (heartbeat.log has them all)\n", len(lines)-i)
			break
		}
		fmt.Fprintf(&b, "- `%s`\n", strings.ReplaceAll(l, "`", "'"))
	}
	if hint != "" {
		b.WriteString("\n" + hint + "\n")
	}
	r.note(ctx, board.KindNote, b.String())
}
