package outbox

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/notify"
	"github.com/bonsai-run/bonsai/internal/store"
)

// Flags are a channel's settings as `bonsai notify add` takes them.
type Flags struct {
	// URL is the webhook, ntfy topic, Slack or Discord URL.
	URL string
	// Project limits the channel to one project's notifications.
	Project string
	// Events is the comma-separated kinds to send; empty means all.
	Events string
	// SMTP, From, To and User are an email channel's server (host:port),
	// sender, recipients (comma-separated) and login.
	SMTP, From, To, User string
}

// NewChannel makes the channel name of kind from f and the secret read
// from standard input ("" when none was given), checked by notify.Check.
// The secret is the setting the kind keeps secret: a webhook's signing
// secret, an ntfy token, the SMTP password, or a Slack or Discord webhook
// URL. Its errors are the caller's to fix.
func NewChannel(name string, kind board.ChannelKind, f Flags, secret string) (board.Channel, error) {
	c := board.Channel{Name: name, Kind: kind, ProjectSlug: f.Project, Settings: map[string]string{}}
	for _, k := range strings.Split(f.Events, ",") {
		if k = strings.TrimSpace(k); k != "" {
			c.Kinds = append(c.Kinds, board.NotifyKind(k))
		}
	}
	set := func(k, v string) {
		if v != "" {
			c.Settings[k] = v
		}
	}
	set(notify.KeyURL, f.URL)
	set(notify.KeyHost, f.SMTP)
	set(notify.KeyFrom, f.From)
	set(notify.KeyTo, f.To)
	set(notify.KeyUser, f.User)
	if secret != "" {
		switch kind {
		case board.ChannelWebhook:
			set(notify.KeySecret, secret)
		case board.ChannelNtfy:
			set(notify.KeyToken, secret)
		case board.ChannelEmail:
			set(notify.KeyPassword, secret)
		case board.ChannelSlack, board.ChannelDiscord:
			if f.URL != "" {
				return c, board.Errorf(board.EINVALID, "%s: give the webhook URL either with --url or on standard input, not both", kind)
			}
			set(notify.KeyURL, secret)
		default:
			return c, board.Errorf(board.EINVALID, "a %s channel has no secret; drop --secret-stdin", kind)
		}
	}
	return c, notify.Check(c)
}

// SendTest sends the test message of now on c, within the delivery
// timeout; the error holds none of the channel's secrets.
func SendTest(ctx context.Context, c board.Channel, now time.Time) error {
	snd, err := notify.New(c, notify.Options{})
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, notify.DefaultTimeout+2*time.Second)
	defer cancel()
	if err := snd.Send(ctx, notify.TestMessage(now)); err != nil {
		return errors.New(Redactor(c).String(err.Error()))
	}
	return nil
}

// Find returns the channel called name.
func Find(ctx context.Context, s store.Store, name string) (board.Channel, error) {
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

// ChannelView is a channel as `notify list --json` shows it.
type ChannelView struct {
	Name    string             `json:"name"`
	Kind    board.ChannelKind  `json:"kind"`
	Project string             `json:"project,omitempty"`
	Events  []board.NotifyKind `json:"events"`
	Target  string             `json:"target"`
	Pending int                `json:"pending"`
	Failed  int                `json:"failed"`
}

// List returns the channels with their counts of pending and failed
// notifications, and the ten newest failed notifications.
func List(ctx context.Context, s store.Store) ([]ChannelView, []board.Notification, error) {
	cs, err := s.Channels(ctx)
	if err != nil {
		return nil, nil, err
	}
	failed, err := s.NotificationList(ctx, store.NotificationFilter{Status: board.NotifyFailed, Limit: 1000})
	if err != nil {
		return nil, nil, err
	}
	pending, err := s.NotificationList(ctx, store.NotificationFilter{Status: board.NotifyPending, Limit: 1000})
	if err != nil {
		return nil, nil, err
	}
	views := []ChannelView{}
	for _, c := range cs {
		v := ChannelView{Name: c.Name, Kind: c.Kind, Project: c.ProjectSlug, Events: c.Kinds, Target: notify.Target(c)}
		v.Pending = countOf(pending, c.ID)
		v.Failed = countOf(failed, c.ID)
		views = append(views, v)
	}
	if len(failed) > 10 {
		failed = failed[:10]
	}
	return views, failed, nil
}

// countOf counts the notifications of channel id.
func countOf(ns []board.Notification, id string) int {
	n := 0
	for _, x := range ns {
		if x.ChannelID == id {
			n++
		}
	}
	return n
}

// WriteList prints the channels as a table, then the failed deliveries.
func WriteList(w io.Writer, cs []ChannelView, failed []board.Notification) error {
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
