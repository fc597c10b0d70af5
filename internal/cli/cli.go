package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"regexp"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/cmd/cmdkit"
	"github.com/bonsai-run/bonsai/internal/executor/sandbox"
	"github.com/bonsai-run/bonsai/internal/termsafe"
)

// Exit codes of the bonsai command. Scripts rely on them.
const (
	exitOK       = 0
	exitError    = 1 // the runtime failed
	exitUsage    = 2 // bad arguments or input
	exitNotFound = 3 // no such project or ticket
	exitRefused  = 4 // a board rule refused the change
)

// Main runs the bonsai command with the process's arguments and streams and
// exits with its exit code.
func Main() {
	if len(os.Args) > 1 && os.Args[1] == sandbox.BridgeArg {
		// The sandbox's proxy bridge: no command line, no configuration.
		os.Exit(sandbox.BridgeMain(os.Args[2:]))
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := runExiting(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr, nil, true)
	stop()
	os.Exit(code)
}

// Run runs the bonsai command with args (without the program name) and
// returns its exit code. Errors are printed to stderr as "bonsai: …".
func Run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return run(ctx, args, stdin, stdout, stderr, nil)
}

// run is Run with the clock now (nil: time.Now); tests inject one.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer, now func() time.Time) int {
	return runExiting(ctx, args, stdin, stdout, stderr, now, false)
}

// runExiting is run for a process that exits right after when exiting is
// set: what the exit releases anyway may be left to it (closeAtExit).
func runExiting(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer, now func() time.Time, exiting bool) int {
	a := newApp(stdin, stdout, stderr, os.Getenv)
	if now != nil {
		a.now = now
	}
	root := newRootCmd(a)
	root.SetHelpCommand(newHelpCmd())
	refuseUnknownSubcommands(root)
	root.SetFlagErrorFunc(explainFlagError)
	root.Version = versionLine()
	root.SetVersionTemplate("{{.Version}}\n")
	root.Flags().BoolP("version", "v", false, "print the version of bonsai")
	root.SetArgs(args)
	root.SetIn(stdin)
	root.SetOut(stdout)
	root.SetErr(stderr)
	cmd, err := root.ExecuteContextC(ctx)
	closeStore := a.close
	if exiting {
		closeStore = a.closeAtExit
	}
	if cerr := closeStore(); err == nil {
		err = cerr
	}
	if err == nil {
		return exitOK
	}
	code := exitCode(err, a.started)
	// An error can quote what an agent wrote (a branch, a ticket's text,
	// git's output about its files): its control characters show as
	// escapes.
	fmt.Fprintf(stderr, "bonsai: %s\n", termsafe.Text(plainFlagGroupError(err)))
	if code == exitUsage && !a.started {
		printUsageHint(stderr, cmd)
	}
	return code
}

// printUsageHint follows a usage error raised before the command ran with
// the failing command's usage line and where to read more, so that
// "bonsai project add" without arguments shows what it takes.
func printUsageHint(w io.Writer, cmd *cobra.Command) {
	if cmd == nil || !cmd.HasParent() {
		fmt.Fprintln(w, "Run 'bonsai --help' for usage.")
		return
	}
	if cmd.Runnable() && !cmd.HasSubCommands() {
		fmt.Fprintf(w, "Usage: %s\n", cmd.UseLine())
	}
	fmt.Fprintf(w, "Run '%s --help' for usage.\n", cmd.CommandPath())
}

// exitCode maps an error to the exit code. Errors raised before a command
// started running (unknown command or flag, wrong number of arguments) are
// usage errors.
func exitCode(err error, started bool) int {
	if !started {
		return exitUsage
	}
	var ue *usageError
	if errors.As(err, &ue) {
		return exitUsage
	}
	switch board.ErrorCode(err) {
	case board.EINVALID:
		return exitUsage
	case board.ENOTFOUND:
		return exitNotFound
	case board.EREFUSED:
		return exitRefused
	}
	return exitError
}

// usageError marks an error as the caller's mistake (exit code 2); the
// command families return the same type (cmdkit.UsageError).
type usageError = cmdkit.UsageError

// usagef returns a usage error with a formatted message.
var usagef = cmdkit.Usagef

// refuseUnknownSubcommands makes every command group below the root (project,
// ticket, config…) refuse an unknown subcommand as a usage error; cobra would
// print the group's help and exit 0, hiding the typo from scripts. A group
// given no subcommand still prints its help.
func refuseUnknownSubcommands(root *cobra.Command) {
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
		refuseUnknownSubcommands(c)
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

// explainFlagError adds a hint to cobra's "unknown shorthand flag" error, which
// is mostly a comment or value that starts with - ("- fix this", -1) being
// read as flags.
func explainFlagError(cmd *cobra.Command, err error) error {
	msg := err.Error()
	if name, ok := strings.CutPrefix(msg, "unknown flag: --"); ok {
		if near := cmdkit.NearestFlag(cmd, name); near != "" {
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

// plainFlagGroupError rewords cobra's messages for required and mutually
// exclusive flags: `--repo is required` rather than `required flag(s)
// "repo" not set`.
func plainFlagGroupError(err error) string {
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
