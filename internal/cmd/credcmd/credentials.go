// Package credcmd holds `bonsai credentials`: model API keys and forge
// tokens stored in the data directory's credential store, listed by
// where each comes from, and removed.
package credcmd

import (
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/bonsai-run/bonsai/internal/cmd/cmdkit"
	"github.com/bonsai-run/bonsai/internal/credentials"
	"github.com/bonsai-run/bonsai/internal/view/text"
)

// NewCmd returns `bonsai credentials` and its subcommands.
func NewCmd(a *cmdkit.App) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "credentials",
		Short: "Store model API keys and forge tokens for the heartbeat service and the web UI",
		Long: `Store the API keys of model providers (anthropic, openai, …) and the github
and gitlab tokens in the data directory, so that every Bonsai process finds
them: the heartbeat service started by systemd, launchd or Task Scheduler
reads no shell profile.

An environment variable wins over a stored value (ANTHROPIC_API_KEY over
the stored anthropic key). Stored values are encrypted in credentials.json;
the key that opens them is in the OS keychain when one answers (macOS
Keychain, the Secret Service on Linux desktops), else in credentials.key.
See docs/credentials.md.`,
	}
	cmd.AddCommand(newCredentialsSetCmd(a), newCredentialsListCmd(a), newCredentialsRmCmd(a))
	return cmd
}

// lookupCredential checks a name from the command line
// (credentials.ParseName); its errors are usage errors.
func lookupCredential(arg string) (credentials.Name, error) {
	n, err := credentials.ParseName(arg)
	if err != nil {
		return n, &cmdkit.UsageError{Err: err}
	}
	return n, nil
}

func newCredentialsSetCmd(a *cmdkit.App) *cobra.Command {
	return &cobra.Command{
		Use:   "set PROVIDER",
		Short: "Store or replace a key, read from the terminal without echo or from standard input",
		Long: `Store or replace the API key of a provider, or the github or gitlab token.
The key is read from the terminal without echo, or from standard input when
it is not a terminal; never from the command line, where it would stay in
the shell history and the process list.`,
		Example: `  bonsai credentials set anthropic
  pass show anthropic | bonsai credentials set anthropic`,
		Args: func(cmd *cobra.Command, args []string) error {
			switch {
			case len(args) == 0:
				return fmt.Errorf("name the provider: bonsai credentials set PROVIDER (one of %s)", strings.Join(knownCredentialNames(), ", "))
			case len(args) > 1:
				return errors.New("the key is never taken from the command line (it would stay in the shell history and the process list): run 'bonsai credentials set " + credentials.FirstChars(args[0], 20) + "' and paste the key, or pipe it in on standard input")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			n, err := lookupCredential(args[0])
			if err != nil {
				return err
			}
			secret, err := credentials.ReadSecret(a.Stdin, a.Stderr, n.Name)
			var ie *credentials.InputError
			if errors.As(err, &ie) {
				return &cmdkit.UsageError{Err: err}
			} else if err != nil {
				return err
			}
			if _, err := a.DataDir(); err != nil {
				return err
			}
			s, err := a.Keys().Store()
			if err != nil {
				return err
			}
			if err := s.Set(n.Name, secret); err != nil {
				return err
			}
			a.Keys().Forget()
			shown := ""
			if l := credentials.LastFour(secret); l != "" {
				shown = " (…" + l + ")"
			}
			fmt.Fprintf(a.Stdout, "Stored the %s key%s in %s\n", n.Name, shown, s.Path())
			if where, err := s.Keyring(); err == nil && where != "" {
				fmt.Fprintf(a.Stdout, "It is encrypted; the key that opens it is in %s.\n", where)
			}
			for _, v := range n.Env {
				if a.Env(v) != "" {
					fmt.Fprintf(a.Stdout, "Note: %s is set in this environment and wins over the stored key here.\n", v)
				}
			}
			return nil
		},
	}
}

func knownCredentialNames() []string {
	var out []string
	for _, n := range credentials.Names() {
		out = append(out, n.Name)
	}
	return out
}

func newCredentialsListCmd(a *cmdkit.App) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "list",
		Short: "Show where each provider's key comes from: the environment, the store or nowhere",
		Long: `Show, for every provider and forge, where Bonsai finds its key: the
environment variable (which wins), the stored value, or none; with the last
four characters and when a stored value was set. Keys are never shown.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			srcs, err := a.Keys().Sources()
			if err != nil {
				return err
			}
			if asJSON {
				return cmdkit.WriteJSON(a.Stdout, srcs)
			}
			return text.WriteKeySources(a.Stdout, srcs)
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}

func newCredentialsRmCmd(a *cmdkit.App) *cobra.Command {
	return &cobra.Command{
		Use:     "rm PROVIDER",
		Aliases: []string{"remove"},
		Short:   "Remove a stored key",
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			n, err := lookupCredential(args[0])
			if err != nil {
				return err
			}
			s, err := a.Keys().Store()
			if err != nil {
				return err
			}
			if err := s.Remove(n.Name); err != nil {
				var ns *credentials.NotStoredError
				if errors.As(err, &ns) {
					return cmdkit.Usagef("%v; 'bonsai credentials list' shows what is", err)
				}
				return err
			}
			a.Keys().Forget()
			fmt.Fprintf(a.Stdout, "Removed the stored %s key\n", n.Name)
			for _, v := range n.Env {
				if a.Env(v) != "" {
					fmt.Fprintf(a.Stdout, "Note: %s is still set in this environment.\n", v)
				}
			}
			return nil
		},
	}
}
