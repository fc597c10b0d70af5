package cmdkit

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"
)

// UsageError marks an error as the caller's mistake: the bonsai command
// exits with code 2 (internal/cli's exit code mapping).
type UsageError struct{ Err error }

func (e *UsageError) Error() string { return e.Err.Error() }
func (e *UsageError) Unwrap() error { return e.Err }

// Usagef returns a usage error with a formatted message.
func Usagef(format string, args ...any) error {
	return &UsageError{Err: fmt.Errorf(format, args...)}
}

// ExactArgs accepts exactly the named positional arguments and, unlike
// cobra.ExactArgs, says which one is missing or that text with spaces needs
// quotes: `bonsai ticket add demo Fix the bug` is the usual slip.
func ExactArgs(names ...string) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		switch {
		case len(args) < len(names):
			return fmt.Errorf("missing %s", strings.Join(names[len(args):], " and "))
		case len(args) > len(names):
			return fmt.Errorf("%d arguments given, but %s takes %d (%s); put text that has spaces in quotes",
				len(args), strings.TrimPrefix(cmd.CommandPath(), "bonsai "), len(names), strings.Join(names, " "))
		}
		return nil
	}
}
