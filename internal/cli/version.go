package cli

import (
	"fmt"
	"runtime"
	"runtime/debug"

	"github.com/spf13/cobra"
)

// version is set at build time with -ldflags "-X …/cli.version=v1.2.3".
var version = "dev"

func newVersionCmd(a *app) *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print the version of bonsai",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			_, err := fmt.Fprintln(a.stdout, versionLine())
			return err
		},
	}
}

// versionLine is what 'bonsai version' and 'bonsai --version' print.
func versionLine() string {
	return fmt.Sprintf("bonsai %s (%s %s/%s)", versionNumber(), runtime.Version(), runtime.GOOS, runtime.GOARCH)
}

// versionNumber is this binary's version: set at build time, else the
// module's, else "dev".
func versionNumber() string {
	v := version
	if info, ok := debug.ReadBuildInfo(); ok && v == "dev" && info.Main.Version != "" && info.Main.Version != "(devel)" {
		v = info.Main.Version
	}
	return v
}
