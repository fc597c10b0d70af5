package cli

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/bonsai-run/bonsai/internal/config"
)

func newInitCmd(a *app) *cobra.Command {
	return &cobra.Command{
		Use:   "init",
		Short: "Create the data directory, config.json and the web token",
		Long: `Create the data directory ($BONSAI_DATA_DIR, default ~/.bonsai) with its
layout, a config.json holding the defaults, the web UI token and the database.
Existing files are kept. Every command runs this implicitly when it needs to.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			d, err := config.DefaultDir(a.getenv)
			if err != nil {
				return err
			}
			res, err := a.initDir(d)
			if err != nil {
				return err
			}
			if _, err := a.config(); err != nil {
				return err
			}
			_, statErr := os.Stat(d.DB())
			if _, err := a.openStore(cmd.Context()); err != nil {
				return err
			}
			created := res.Created
			if errors.Is(statErr, fs.ErrNotExist) {
				created = append(created, filepath.Base(d.DB()))
			}
			if len(created) == 0 {
				fmt.Fprintf(a.stdout, "Bonsai data directory %s is ready (nothing to create)\n", d)
				return nil
			}
			fmt.Fprintf(a.stdout, "Initialised Bonsai data directory %s\n", d)
			for _, c := range created {
				fmt.Fprintf(a.stdout, "  created %s\n", c)
			}
			fmt.Fprintln(a.stdout, "Next: bonsai project add <slug> --repo <path-or-url>")
			return nil
		},
	}
}
