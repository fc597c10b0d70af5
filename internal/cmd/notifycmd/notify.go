// Package notifycmd holds `bonsai notify`: notification channels added
// after a test, listed, tested and removed, and the due notifications
// delivered now.
package notifycmd

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/cmd/cmdkit"
	"github.com/bonsai-run/bonsai/internal/llm"
	"github.com/bonsai-run/bonsai/internal/notify"
	"github.com/bonsai-run/bonsai/internal/notify/outbox"
	"github.com/bonsai-run/bonsai/internal/store"
)

// NewCmd returns `bonsai notify` and its subcommands; redact gives the
// process's secrets, which delivery errors never show.
func NewCmd(a *cmdkit.App, redact func(context.Context, store.Store) *llm.Redactor) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "notify",
		Short: "Send notifications off the machine: webhooks, ntfy, Slack, Discord, email, desktop",
		Long: `Channels receive notifications when an agent asks a question, asks for an
approval, moves work to VERIFICATION, when a run fails or times out, stops at
a budget, or when agents cannot run (once per cause). Each channel listens to
one project or all, and to some kinds or all.

Notifications are written in the same transaction as the event that causes
them and delivered by the next bonsai process (a heartbeat, bonsai serve or
up), retried with backoff, and marked failed after ` + fmt.Sprint(notify.MaxAttempts) + ` attempts or a
permanent error. See docs/notifications.md.`,
	}
	cmd.AddCommand(newNotifyAddCmd(a), newNotifyListCmd(a), newNotifyTestCmd(a), newNotifyRmCmd(a), newNotifyDeliverCmd(a, redact))
	return cmd
}

type notifyAddOptions struct {
	outbox.Flags
	secretStdin, noTest bool
}

func newNotifyAddCmd(a *cmdkit.App) *cobra.Command {
	var o notifyAddOptions
	cmd := &cobra.Command{
		Use:   "add <name> <webhook|ntfy|slack|discord|email|desktop>",
		Short: "Add a channel, after sending it a test notification",
		Long: `Add a channel. A test notification is sent first and the channel is not
added when it fails (--no-test adds it anyway).

Secrets are read from standard input with --secret-stdin, never from the
command line: a webhook's signing secret, an ntfy access token, the SMTP
password, or a Slack or Discord webhook URL (whose path is its key). They
are never printed in full.

--events takes a comma-separated list of question, approval, review,
run_failed, budget, blocked; the default is every kind.`,
		Example: `  openssl rand -hex 32 | bonsai notify add ci webhook --url https://ci.example.com/bonsai --secret-stdin
  bonsai notify add phone ntfy --url https://ntfy.sh/my-bonsai-topic --events question,review
  echo "$SLACK_WEBHOOK_URL" | bonsai notify add team slack --secret-stdin --project demo
  echo "$SMTP_PASSWORD" | bonsai notify add mail email --smtp smtp.example.com:587 --user me --from bonsai@example.com --to me@example.com --secret-stdin
  bonsai notify add here desktop`,
		Args: cmdkit.ExactArgs("<name>", "<kind>"),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runNotifyAdd(cmd.Context(), a, args[0], board.ChannelKind(args[1]), o)
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.URL, "url", "", "the webhook, ntfy topic, Slack or Discord URL")
	f.BoolVar(&o.secretStdin, "secret-stdin", false, "read the channel's secret from standard input (first line)")
	f.StringVar(&o.Project, "project", "", "only this project's notifications (default: every project)")
	f.StringVar(&o.Events, "events", "", "comma-separated kinds to send (default: all)")
	f.StringVar(&o.SMTP, "smtp", "", "email: the SMTP server as host:port (STARTTLS is required)")
	f.StringVar(&o.From, "from", "", "email: the sender address")
	f.StringVar(&o.To, "to", "", "email: recipients, comma-separated")
	f.StringVar(&o.User, "user", "", "email: the SMTP login")
	f.BoolVar(&o.noTest, "no-test", false, "add the channel without sending a test notification")
	return cmd
}

func runNotifyAdd(ctx context.Context, a *cmdkit.App, name string, kind board.ChannelKind, o notifyAddOptions) error {
	var secret string
	if o.secretStdin {
		var err error
		if secret, err = readSecretLine(a.Stdin); err != nil {
			return err
		}
	}
	c, err := outbox.NewChannel(name, kind, o.Flags, secret)
	if err != nil {
		return invalid(err)
	}
	s, err := a.OpenStore(ctx)
	if err != nil {
		return err
	}
	if c.ProjectSlug != "" {
		if _, err := s.Project(ctx, c.ProjectSlug); err != nil {
			return err
		}
	}
	if !o.noTest {
		if err := outbox.SendTest(ctx, c, a.Now()); err != nil {
			return fmt.Errorf("channel %s not added: the test notification failed: %w\nFix the settings, or add it anyway with --no-test", name, err)
		}
	}
	if _, err := s.AddChannel(ctx, c); err != nil {
		return err
	}
	fmt.Fprintf(a.Stdout, "Added channel %s (%s to %s)", name, kind, notify.Target(c))
	if !o.noTest {
		fmt.Fprint(a.Stdout, "; a test notification was sent")
	}
	fmt.Fprintln(a.Stdout)
	return nil
}

// invalid makes a channel's settings error a usage error (exit code 2).
func invalid(err error) error {
	if board.ErrorCode(err) == board.EINVALID {
		return err
	}
	return &cmdkit.UsageError{Err: err}
}

// readSecretLine reads the first line of r, trimmed.
func readSecretLine(r io.Reader) (string, error) {
	line, err := bufio.NewReader(io.LimitReader(r, 64<<10)).ReadString('\n')
	if err != nil && !errors.Is(err, io.EOF) {
		return "", cmdkit.Usagef("read the secret from standard input: %v", err)
	}
	line = strings.TrimSpace(line)
	if line == "" {
		return "", cmdkit.Usagef("--secret-stdin: standard input is empty; pipe the secret in, e.g. echo \"$SECRET\" | bonsai notify add …")
	}
	return line, nil
}

func newNotifyTestCmd(a *cmdkit.App) *cobra.Command {
	return &cobra.Command{
		Use:   "test <name>",
		Short: "Send a test notification to a channel now",
		Args:  cmdkit.ExactArgs("<name>"),
		RunE: func(cmd *cobra.Command, args []string) error {
			s, err := a.OpenStore(cmd.Context())
			if err != nil {
				return err
			}
			c, err := outbox.Find(cmd.Context(), s, args[0])
			if err != nil {
				return err
			}
			if err := outbox.SendTest(cmd.Context(), c, a.Now()); err != nil {
				return fmt.Errorf("channel %s: %w", c.Name, err)
			}
			fmt.Fprintf(a.Stdout, "Sent a test notification to %s (%s to %s)\n", c.Name, c.Kind, notify.Target(c))
			return nil
		},
	}
}

func newNotifyRmCmd(a *cmdkit.App) *cobra.Command {
	return &cobra.Command{
		Use:   "rm <name>",
		Short: "Remove a channel and its undelivered notifications",
		Args:  cmdkit.ExactArgs("<name>"),
		RunE: func(cmd *cobra.Command, args []string) error {
			s, err := a.OpenStore(cmd.Context())
			if err != nil {
				return err
			}
			if err := s.RemoveChannel(cmd.Context(), args[0]); err != nil {
				return err
			}
			fmt.Fprintf(a.Stdout, "Removed channel %s\n", args[0])
			return nil
		},
	}
}

func newNotifyDeliverCmd(a *cmdkit.App, redact func(context.Context, store.Store) *llm.Redactor) *cobra.Command {
	return &cobra.Command{
		Use:   "deliver",
		Short: "Deliver the notifications that are due now",
		Long: `Deliver the notifications that are due now and exit. Heartbeats and
bonsai serve/up do this by themselves; this is for scripts and checks.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			s, err := a.OpenStore(cmd.Context())
			if err != nil {
				return err
			}
			base := ""
			if cfg, err := a.Config(); err == nil {
				base = cfg.Forge.BonsaiURL
			}
			res, err := outbox.Deliver(cmd.Context(), s, func(ctx context.Context) *llm.Redactor { return redact(ctx, s) }, base, nil, time.Minute)
			if err != nil {
				return err
			}
			fmt.Fprintf(a.Stdout, "%d sent, %d to retry, %d failed\n", res.Sent, res.Retry, res.Failed)
			return nil
		},
	}
}

func newNotifyListCmd(a *cmdkit.App) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List the channels and the notifications that failed",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			s, err := a.OpenStore(ctx)
			if err != nil {
				return err
			}
			views, failed, err := outbox.List(ctx, s)
			if err != nil {
				return err
			}
			if asJSON {
				return cmdkit.WriteJSON(a.Stdout, map[string]any{"channels": views, "failed": failed})
			}
			return outbox.WriteList(a.Stdout, views, failed)
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}
