package cmdkit

import (
	"errors"
	"fmt"
	"io"
	"regexp"
	"strings"

	"github.com/spf13/cobra"
)

// PrintUsageHint follows a usage error raised before the command ran with
// the failing command's usage line and where to read more, so that
// "bonsai project add" without arguments shows what it takes.
func PrintUsageHint(w io.Writer, cmd *cobra.Command) {
	if cmd == nil || !cmd.HasParent() {
		fmt.Fprintln(w, "Run 'bonsai --help' for usage.")
		return
	}
	if cmd.Runnable() && !cmd.HasSubCommands() {
		fmt.Fprintf(w, "Usage: %s\n", cmd.UseLine())
	}
	fmt.Fprintf(w, "Run '%s --help' for usage.\n", cmd.CommandPath())
}

// RefuseUnknownSubcommands makes every command group below the root (project,
// ticket, config…) refuse an unknown subcommand as a usage error; cobra would
// print the group's help and exit 0, hiding the typo from scripts. A group
// given no subcommand still prints its help.
func RefuseUnknownSubcommands(root *cobra.Command) {
	if !root.HasParent() {
		// A group is runnable now only to refuse unknown subcommands; its
		// usage keeps showing "bonsai ticket [command]" alone.
		root.SetUsageTemplate(strings.Replace(root.UsageTemplate(),
			"{{if .Runnable}}", "{{if and .Runnable (not .HasAvailableSubCommands)}}", 1))
	}
	for _, c := range root.Commands() {
		if c.HasSubCommands() && !c.Runnable() {
			c.Args = unknownSubcommand
			c.SuggestionsMinimumDistance = 2 // cobra sets it on the root only
			c.RunE = func(cmd *cobra.Command, _ []string) error { return cmd.Help() }
		}
		RefuseUnknownSubcommands(c)
	}
}

// unknownSubcommand is the Args check of a command group: any argument is
// a subcommand it does not have, and the error suggests the one meant, as
// cobra does for the root's commands ("bonsai ticket shwo": did you mean
// "show"?).
func unknownSubcommand(cmd *cobra.Command, args []string) error {
	if len(args) == 0 {
		return nil
	}
	err := fmt.Errorf("unknown command %q for %q", args[0], cmd.CommandPath())
	if s := cmd.SuggestionsFor(args[0]); len(s) > 0 {
		return fmt.Errorf("%w; did you mean %q?", err, s[0])
	}
	return err
}

// ExplainFlagError adds a hint to cobra's "unknown shorthand flag" error, which
// is mostly a comment or value that starts with - ("- fix this", -1) being
// read as flags.
func ExplainFlagError(cmd *cobra.Command, err error) error {
	msg := err.Error()
	if name, ok := strings.CutPrefix(msg, "unknown flag: --"); ok {
		if near := NearestFlag(cmd, name); near != "" {
			return fmt.Errorf("%w; did you mean --%s?", err, near)
		}
	}
	if strings.HasPrefix(msg, "unknown shorthand flag") {
		return fmt.Errorf("%w; to pass an argument that starts with -, put -- before it", err)
	}
	if m := strconvError.FindStringSubmatchIndex(msg); m != nil {
		// "invalid argument "x" for "--n" flag: strconv.ParseInt: parsing "x":
		// invalid syntax" says more about Go than about the flag.
		want := map[string]string{"Int": "a whole number", "Uint": "a whole number of 0 or more", "Float": "a number", "Bool": "true or false"}[msg[m[2]:m[3]]]
		if strings.HasSuffix(msg, "value out of range") {
			want += " in range"
		}
		return errors.New(msg[:m[0]] + "want " + want)
	}
	return err
}

// strconvError matches the strconv part of pflag's invalid-value errors.
var strconvError = regexp.MustCompile(`strconv\.Parse(Int|Uint|Float|Bool): parsing .*$`)

var (
	requiredFlags  = regexp.MustCompile(`^required flag\(s\) (.*) not set$`)
	exclusiveFlags = regexp.MustCompile(`^if any flags in the group \[(.*)\] are set none of the others can be; \[(.*)\] were all set$`)
)

// PlainFlagGroupError rewords cobra's messages for required and mutually
// exclusive flags: `--repo is required` rather than `required flag(s)
// "repo" not set`.
func PlainFlagGroupError(err error) string {
	msg := err.Error()
	if m := requiredFlags.FindStringSubmatch(msg); m != nil {
		names := strings.Split(strings.ReplaceAll(m[1], `"`, ""), ", ")
		if len(names) == 1 {
			return "--" + names[0] + " is required"
		}
		return "--" + strings.Join(names, ", --") + " are required"
	}
	if m := exclusiveFlags.FindStringSubmatch(msg); m != nil {
		return "--" + strings.Join(strings.Fields(m[2]), " and --") + " cannot be used together"
	}
	return msg
}
