package cli

import (
	"slices"
	"strings"

	"github.com/bonsai-run/bonsai/internal/agenthost"
	"github.com/bonsai-run/bonsai/internal/tools"
)

// parseTools checks a --tools list against the known tools: the coding
// tools, and the screenshot tool, which is never on by default (its
// schema would weigh on every request) and needs Chromium.
func parseTools(list string) ([]string, error) {
	known := append(agenthost.CodingTools(), agenthost.ScreenshotTool)
	var names []string
	for n := range strings.SplitSeq(list, ",") {
		n = strings.TrimSpace(n)
		if n == "" {
			continue
		}
		if !slices.Contains(known, n) {
			return nil, usagef("--tools: unknown tool %q (known: %s)", n, strings.Join(known, ","))
		}
		if n == agenthost.ScreenshotTool && tools.FindChromium(nil) == "" {
			return nil, usagef("--tools: the screenshot tool needs Chromium, which is not installed (Debian: apt-get install chromium; bonsai doctor checks it)")
		}
		if !slices.Contains(names, n) {
			names = append(names, n)
		}
	}
	return names, nil
}
