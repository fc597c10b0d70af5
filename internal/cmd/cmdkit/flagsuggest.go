package cmdkit

import (
	"strings"

	"github.com/bonsai-run/bonsai/internal/config"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// NearestFlag returns the flag of cmd that an unknown flag name was most
// likely meant to be (--criteria for --criterion, --desc for
// --description), or "" when none is close.
func NearestFlag(cmd *cobra.Command, name string) string {
	name, _, _ = strings.Cut(name, "=")
	best, bestDist := "", 3 // farther than 2 edits is no suggestion
	cmd.Flags().VisitAll(func(f *pflag.Flag) {
		if f.Hidden {
			return
		}
		d := config.EditDistance(name, f.Name)
		if len(name) >= 3 && strings.HasPrefix(f.Name, name) {
			d = 1
		}
		// On a tie, a name of the same length is the likelier typo.
		if d < bestDist || d == bestDist && len(f.Name) == len(name) && len(best) != len(name) {
			best, bestDist = f.Name, d
		}
	})
	return best
}
