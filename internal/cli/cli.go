package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
	"time"

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
	root.SetHelpCommand(cmdkit.NewHelpCmd())
	cmdkit.RefuseUnknownSubcommands(root)
	root.SetFlagErrorFunc(cmdkit.ExplainFlagError)
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
	fmt.Fprintf(stderr, "bonsai: %s\n", termsafe.Text(cmdkit.PlainFlagGroupError(err)))
	if code == exitUsage && !a.started {
		cmdkit.PrintUsageHint(stderr, cmd)
	}
	return code
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
