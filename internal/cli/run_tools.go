package cli

import (
	"slices"
	"strings"

	"github.com/bonsai-run/bonsai/internal/agenthost"
)

// parseTools checks a --tools list against the known tools.
func parseTools(list string) ([]string, error) {
	var names []string
	for n := range strings.SplitSeq(list, ",") {
		n = strings.TrimSpace(n)
		if n == "" {
			continue
		}
		if !slices.Contains(agenthost.CodingTools(), n) {
			return nil, usagef("--tools: unknown tool %q (known: %s)", n, strings.Join(agenthost.CodingTools(), ","))
		}
		if !slices.Contains(names, n) {
			names = append(names, n)
		}
	}
	return names, nil
}
