package heartbeat

import (
	"fmt"
	"strings"
	"testing"
)

// refusing reports refused connections as a sandbox's proxy does.
type refusing []string

func (r refusing) NetworkRefusals() ([]string, string) { return r, "allow a host with --allow-host" }

// TestRefusalsText lists the refusals, at most maxRefusalLines, with the
// hint; an executor without a proxy says nothing.
func TestRefusalsText(t *testing.T) {
	t.Parallel()
	if got := refusalsText(struct{}{}); got != "" {
		t.Fatalf("an executor without a proxy: %q", got)
	}
	if got := refusalsText(refusing(nil)); got != "" {
		t.Fatalf("no refusals: %q", got)
	}
	var many refusing
	for i := range maxRefusalLines + 5 {
		many = append(many, fmt.Sprintf("host%d.example:443`", i))
	}
	got := refusalsText(many)
	if strings.Count(got, "\n- `") != maxRefusalLines || !strings.Contains(got, "… and 5 more") ||
		!strings.Contains(got, "host0.example:443'") || !strings.Contains(got, "--allow-host") {
		t.Fatalf("refusals text:\n%s", got)
	}
}
