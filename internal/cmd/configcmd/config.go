// Package configcmd holds `bonsai config`: config.json's settings read,
// changed (checked by config.json's schema, the file left as it was when
// a value is refused) and listed.
package configcmd

import (
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/bonsai-run/bonsai/internal/cmd/cmdkit"
	"github.com/bonsai-run/bonsai/internal/config"
	"github.com/bonsai-run/bonsai/internal/view/text"
)

// NewCmd returns `bonsai config` and its subcommands.
func NewCmd(a *cmdkit.App) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "config",
		Short: "Read and change config.json",
		Long: `Read and change config.json in the data directory. Values are validated
exactly as when the file is loaded; an invalid value is refused and the file
is left as it was.`,
	}
	cmd.AddCommand(newConfigGetCmd(a), newConfigSetCmd(a), newConfigListCmd(a))
	return cmd
}

func newConfigGetCmd(a *cmdkit.App) *cobra.Command {
	return &cobra.Command{
		Use:     "get <key>",
		Short:   "Print one setting",
		Example: "  bonsai config get model\n  bonsai config get heartbeat.intervalSec",
		Args:    cmdkit.ExactArgs("<key>"),
		RunE: func(cmd *cobra.Command, args []string) error {
			c, err := a.Config()
			if err != nil {
				return err
			}
			v, err := c.Get(args[0])
			if err != nil {
				return &cmdkit.UsageError{Err: err}
			}
			fmt.Fprintln(a.Stdout, v)
			return nil
		},
	}
}

func newConfigSetCmd(a *cmdkit.App) *cobra.Command {
	return &cobra.Command{
		Use:   "set <key> <value>",
		Short: "Change one setting",
		Long: `Change one setting in config.json. The value is checked as when the file
is loaded; an invalid value is refused with the allowed range and the file is
left as it was. 'bonsai config list' shows every key, its value and what it
means. agent.env takes a comma-separated list of variable names.

models.<provider/model>.<setting> overrides the model catalog for one model:
contextWindow, maxOutputTokens, images, thinking, and price.input,
price.output, price.cacheRead, price.cacheWrite (USD per million tokens;
budgets in USD count with them). An empty value removes the setting.`,
		Example: `  bonsai config set heartbeat.intervalSec 120
  bonsai config set agent.env GOPATH,GOFLAGS
  bonsai config set models.ollama/qwen3:8b.contextWindow 131072
  bonsai config set models.openai/gpt-5.price.input ""`,
		Args: cmdkit.ExactArgs("<key>", "<value>"),
		RunE: func(cmd *cobra.Command, args []string) error {
			c, err := a.Config()
			var fe *config.FileError
			if err != nil && !errors.As(err, &fe) {
				return err // no data directory, or config.json unreadable
			}
			d, derr := a.DataDir() // found by Config
			if derr != nil {
				return derr
			}
			if err != nil {
				if c, err = config.Without(d.ConfigFile(), args[0], err); err != nil {
					return err
				}
			}
			c, err = c.Set(args[0], args[1])
			if err != nil {
				return &cmdkit.UsageError{Err: err}
			}
			if args[0] == "model" {
				if err := cmdkit.CheckModelID(a.Getenv, "model", args[1]); err != nil {
					return err
				}
			}
			a.ForgetConfig() // the file changes, perhaps within the clock's resolution
			if err := config.Save(d.ConfigFile(), c); err != nil {
				return err
			}
			if args[0] == "model" {
				cmdkit.WarnUnpriced(a.Stderr, c, c.Model)
			}
			v, _ := c.Get(args[0])
			if v == "" && strings.HasPrefix(args[0], "models.") {
				fmt.Fprintf(a.Stdout, "%s removed; the model catalog's value applies\n", args[0])
				return nil
			}
			fmt.Fprintf(a.Stdout, "%s = %s\n", args[0], v)
			return nil
		},
	}
}

func newConfigListCmd(a *cmdkit.App) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:     "list",
		Short:   "Print every setting",
		Example: "  bonsai config list\n  bonsai config list --json",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			c, err := a.Config()
			if err != nil {
				return err
			}
			if asJSON {
				return cmdkit.WriteJSON(a.Stdout, c.List())
			}
			t := text.NewTable(a.Stdout, "KEY", "VALUE", "DESCRIPTION")
			for _, s := range c.List() {
				t.Row(s.Key, s.Value, s.Help)
			}
			return t.Flush()
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}
