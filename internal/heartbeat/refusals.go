package heartbeat

import (
	"fmt"
	"strings"
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

// refusalsText is the note, once per run, of the connections the
// sandbox's proxy refused during it (ex, the run's executor, when it is a
// RefusalReporter), so people see on the ticket why a download failed and
// how to allow the host; "" when there were none.
func refusalsText(ex any) string {
	rr, ok := ex.(RefusalReporter)
	if !ok {
		return ""
	}
	lines, hint := rr.NetworkRefusals()
	if len(lines) == 0 {
		return ""
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
	return b.String()
}
