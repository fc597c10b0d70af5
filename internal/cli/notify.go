package cli

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/notify"
	"github.com/bonsai-run/bonsai/internal/store"
)

func newNotifyCmd(a *app) *cobra.Command {
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
	cmd.AddCommand(newNotifyAddCmd(a), newNotifyListCmd(a), newNotifyTestCmd(a), newNotifyRmCmd(a), newNotifyDeliverCmd(a))
	return cmd
}

type notifyAddOptions struct {
	url, project, events, smtp, from, to, user string
	secretStdin, noTest                        bool
}

func newNotifyAddCmd(a *app) *cobra.Command {
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
		Args: exactArgs("<name>", "<kind>"),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runNotifyAdd(cmd.Context(), a, args[0], board.ChannelKind(args[1]), o)
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.url, "url", "", "the webhook, ntfy topic, Slack or Discord URL")
	f.BoolVar(&o.secretStdin, "secret-stdin", false, "read the channel's secret from standard input (first line)")
	f.StringVar(&o.project, "project", "", "only this project's notifications (default: every project)")
	f.StringVar(&o.events, "events", "", "comma-separated kinds to send (default: all)")
	f.StringVar(&o.smtp, "smtp", "", "email: the SMTP server as host:port (STARTTLS is required)")
	f.StringVar(&o.from, "from", "", "email: the sender address")
	f.StringVar(&o.to, "to", "", "email: recipients, comma-separated")
	f.StringVar(&o.user, "user", "", "email: the SMTP login")
	f.BoolVar(&o.noTest, "no-test", false, "add the channel without sending a test notification")
	return cmd
}

func runNotifyAdd(ctx context.Context, a *app, name string, kind board.ChannelKind, o notifyAddOptions) error {
	c := board.Channel{Name: name, Kind: kind, ProjectSlug: o.project, Settings: map[string]string{}}
	for _, k := range strings.Split(o.events, ",") {
		if k = strings.TrimSpace(k); k != "" {
			c.Kinds = append(c.Kinds, board.NotifyKind(k))
		}
	}
	set := func(k, v string) {
		if v != "" {
			c.Settings[k] = v
		}
	}
	set(notify.KeyURL, o.url)
	set(notify.KeyHost, o.smtp)
	set(notify.KeyFrom, o.from)
	set(notify.KeyTo, o.to)
	set(notify.KeyUser, o.user)
	if o.secretStdin {
		secret, err := readSecretLine(a.stdin)
		if err != nil {
			return err
		}
		switch kind {
		case board.ChannelWebhook:
			set(notify.KeySecret, secret)
		case board.ChannelNtfy:
			set(notify.KeyToken, secret)
		case board.ChannelEmail:
			set(notify.KeyPassword, secret)
		case board.ChannelSlack, board.ChannelDiscord:
			if o.url != "" {
				return usagef("%s: give the webhook URL either with --url or on standard input, not both", kind)
			}
			set(notify.KeyURL, secret)
		default:
			return usagef("a %s channel has no secret; drop --secret-stdin", kind)
		}
	}
	if err := notify.Check(c); err != nil {
		return invalid(err)
	}
	s, err := a.openStore(ctx)
	if err != nil {
		return err
	}
	if c.ProjectSlug != "" {
		if _, err := s.Project(ctx, c.ProjectSlug); err != nil {
			return err
		}
	}
	if !o.noTest {
		if err := sendTest(ctx, a, c); err != nil {
			return fmt.Errorf("channel %s not added: the test notification failed: %w\nFix the settings, or add it anyway with --no-test", name, err)
		}
	}
	if _, err := s.AddChannel(ctx, c); err != nil {
		return err
	}
	fmt.Fprintf(a.stdout, "Added channel %s (%s to %s)", name, kind, notify.Target(c))
	if !o.noTest {
		fmt.Fprint(a.stdout, "; a test notification was sent")
	}
	fmt.Fprintln(a.stdout)
	return nil
}

// invalid makes a channel's settings error a usage error (exit code 2).
func invalid(err error) error {
	if board.ErrorCode(err) == board.EINVALID {
		return err
	}
	return &usageError{err}
}

// readSecretLine reads the first line of r, trimmed.
func readSecretLine(r io.Reader) (string, error) {
	line, err := bufio.NewReader(io.LimitReader(r, 64<<10)).ReadString('\n')
	if err != nil && !errors.Is(err, io.EOF) {
		return "", usagef("read the secret from standard input: %v", err)
	}
	line = strings.TrimSpace(line)
	if line == "" {
		return "", usagef("--secret-stdin: standard input is empty; pipe the secret in, e.g. echo \"$SECRET\" | bonsai notify add …")
	}
	return line, nil
}

// sendTest sends the test message on c, within the delivery timeout.
func sendTest(ctx context.Context, a *app, c board.Channel) error {
	snd, err := notify.New(c, notify.Options{})
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, notify.DefaultTimeout+2*time.Second)
	defer cancel()
	if err := snd.Send(ctx, notify.TestMessage(a.now())); err != nil {
		return errors.New(notifyRedactor(c).String(err.Error()))
	}
	return nil
}

func newNotifyTestCmd(a *app) *cobra.Command {
	return &cobra.Command{
		Use:   "test <name>",
		Short: "Send a test notification to a channel now",
		Args:  exactArgs("<name>"),
		RunE: func(cmd *cobra.Command, args []string) error {
			c, err := findChannel(cmd.Context(), a, args[0])
			if err != nil {
				return err
			}
			if err := sendTest(cmd.Context(), a, c); err != nil {
				return fmt.Errorf("channel %s: %w", c.Name, err)
			}
			fmt.Fprintf(a.stdout, "Sent a test notification to %s (%s to %s)\n", c.Name, c.Kind, notify.Target(c))
			return nil
		},
	}
}

func findChannel(ctx context.Context, a *app, name string) (board.Channel, error) {
	s, err := a.openStore(ctx)
	if err != nil {
		return board.Channel{}, err
	}
	cs, err := s.Channels(ctx)
	if err != nil {
		return board.Channel{}, err
	}
	for _, c := range cs {
		if c.Name == name {
			return c, nil
		}
	}
	return board.Channel{}, board.Errorf(board.ENOTFOUND, "no channel %q; 'bonsai notify list' shows the channels", name)
}

func newNotifyRmCmd(a *app) *cobra.Command {
	return &cobra.Command{
		Use:   "rm <name>",
		Short: "Remove a channel and its undelivered notifications",
		Args:  exactArgs("<name>"),
		RunE: func(cmd *cobra.Command, args []string) error {
			s, err := a.openStore(cmd.Context())
			if err != nil {
				return err
			}
			if err := s.RemoveChannel(cmd.Context(), args[0]); err != nil {
				return err
			}
			fmt.Fprintf(a.stdout, "Removed channel %s\n", args[0])
			return nil
		},
	}
}

func newNotifyDeliverCmd(a *app) *cobra.Command {
	return &cobra.Command{
		Use:   "deliver",
		Short: "Deliver the notifications that are due now",
		Long: `Deliver the notifications that are due now and exit. Heartbeats and
bonsai serve/up do this by themselves; this is for scripts and checks.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			s, err := a.openStore(cmd.Context())
			if err != nil {
				return err
			}
			res, err := deliverNotifications(cmd.Context(), a, s, nil, time.Minute)
			if err != nil {
				return err
			}
			fmt.Fprintf(a.stdout, "%d sent, %d to retry, %d failed\n", res.Sent, res.Retry, res.Failed)
			return nil
		},
	}
}

// channelView is a channel as `notify list --json` shows it.
type channelView struct {
	Name    string             `json:"name"`
	Kind    board.ChannelKind  `json:"kind"`
	Project string             `json:"project,omitempty"`
	Events  []board.NotifyKind `json:"events"`
	Target  string             `json:"target"`
	Pending int                `json:"pending"`
	Failed  int                `json:"failed"`
}

func newNotifyListCmd(a *app) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List the channels and the notifications that failed",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			s, err := a.openStore(ctx)
			if err != nil {
				return err
			}
			cs, err := s.Channels(ctx)
			if err != nil {
				return err
			}
			failed, err := s.NotificationList(ctx, store.NotificationFilter{Status: board.NotifyFailed, Limit: 1000})
			if err != nil {
				return err
			}
			pending, err := s.NotificationList(ctx, store.NotificationFilter{Status: board.NotifyPending, Limit: 1000})
			if err != nil {
				return err
			}
			views := []channelView{}
			for _, c := range cs {
				v := channelView{Name: c.Name, Kind: c.Kind, Project: c.ProjectSlug, Events: c.Kinds, Target: notify.Target(c)}
				for _, n := range pending {
					if n.ChannelID == c.ID {
						v.Pending++
					}
				}
				for _, n := range failed {
					if n.ChannelID == c.ID {
						v.Failed++
					}
				}
				views = append(views, v)
			}
			if len(failed) > 10 {
				failed = failed[:10]
			}
			if asJSON {
				return writeJSON(a.stdout, map[string]any{"channels": views, "failed": failed})
			}
			return writeChannels(a.stdout, views, failed, a.now())
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}

func writeChannels(w io.Writer, cs []channelView, failed []board.Notification, now time.Time) error {
	if len(cs) == 0 {
		_, err := fmt.Fprintln(w, "No channels. Add one with 'bonsai notify add' (see 'bonsai notify add --help').")
		return err
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tKIND\tPROJECT\tEVENTS\tTARGET\tPENDING\tFAILED")
	for _, c := range cs {
		project, events := c.Project, "all"
		if project == "" {
			project = "all"
		}
		if len(c.Events) > 0 {
			var ks []string
			for _, k := range c.Events {
				ks = append(ks, string(k))
			}
			events = strings.Join(ks, ",")
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%d\t%d\n", c.Name, c.Kind, project, events, c.Target, c.Pending, c.Failed)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if len(failed) > 0 {
		fmt.Fprintln(w, "\nFailed deliveries (newest first):")
		for _, n := range failed {
			fmt.Fprintf(w, "  %s  %s  %s %s after %d attempt(s): %s\n", n.CreatedAt.Local().Format("2006-01-02 15:04"),
				n.ChannelName, n.Kind, n.Ticket, n.Attempts, n.LastError)
		}
	}
	return nil
}
