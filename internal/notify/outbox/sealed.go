package outbox

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"maps"
	"time"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/notify"
	"github.com/bonsai-run/bonsai/internal/store"
)

// sealedSettings are the channel settings kept sealed in bonsai.db: the
// webhook signing secret, the ntfy token, the SMTP password and the URL
// (a Slack or Discord webhook URL is itself the secret; any URL may carry
// a password or a token).
var sealedSettings = []string{notify.KeySecret, notify.KeyToken, notify.KeyPassword, notify.KeyURL}

// Keys seals and opens values under a name: the credentials store
// (credentials.Store) in Bonsai.
type Keys interface {
	Seal(name, value string) (string, error)
	Unseal(name, sealed string) (string, error)
}

// Sealed is the store as the commands, delivery and the web page get it:
// channel secrets are sealed with the credentials key on the way in
// (AddChannel) and unsealed on the way out (Channels,
// ClaimNotifications), so bonsai.db alone never holds them. The store
// keeps the sealed text as it keeps any setting.
type Sealed struct {
	store.Store
	// Keys returns the credentials key's sealer, asked only when a
	// channel has a secret.
	Keys func() (Keys, error)
	// Warn receives the warning of a notification whose channel does not
	// open.
	Warn io.Writer
	// Now is the clock of the retries; nil means time.Now.
	Now func() time.Time
}

// SecretName is the name a channel's setting is sealed under: a sealed
// value copied to another channel or setting does not open.
func SecretName(channel, key string) string { return "notify/" + channel + "/" + key }

// AddChannel stores c with its secrets sealed and returns it as given.
func (s Sealed) AddChannel(ctx context.Context, c board.Channel) (board.Channel, error) {
	if err := c.Validate(); err != nil {
		return board.Channel{}, err
	}
	sealed := c
	sealed.Settings = maps.Clone(c.Settings)
	for _, k := range sealedSettings {
		v := sealed.Settings[k]
		if v == "" {
			continue
		}
		ks, err := s.Keys()
		if err != nil {
			return board.Channel{}, err
		}
		if sealed.Settings[k], err = ks.Seal(SecretName(c.Name, k), v); err != nil {
			return board.Channel{}, fmt.Errorf("channel %s not added: seal its %s: %w", c.Name, k, err)
		}
	}
	out, err := s.Store.AddChannel(ctx, sealed)
	if err != nil {
		return out, err
	}
	out.Settings = c.Settings
	return out, nil
}

// Channels lists the channels with their secrets unsealed; a channel
// whose secrets do not open is an error saying how to fix it.
func (s Sealed) Channels(ctx context.Context) ([]board.Channel, error) {
	cs, err := s.OpenChannels(ctx)
	if err != nil {
		return nil, err
	}
	return cs, nil
}

// OpenChannels returns the channels whose secrets open, unsealed, and the
// first error of those that do not: a redactor takes what it can.
func (s Sealed) OpenChannels(ctx context.Context) ([]board.Channel, error) {
	cs, err := s.Store.Channels(ctx)
	if err != nil {
		return nil, err
	}
	var first error
	out := cs[:0]
	for _, c := range cs {
		c, err := s.unseal(c)
		if err != nil {
			first = cmp.Or(first, err)
			continue
		}
		out = append(out, c)
	}
	return out, first
}

// ClaimNotifications claims as the store does and unseals each channel.
// A notification whose channel does not open is settled as a failed
// attempt carrying the reason, retried like any other, warned about on
// Warn and not returned: the other channels are still delivered.
func (s Sealed) ClaimNotifications(ctx context.Context, owner string, lease time.Duration, limit int) ([]board.Delivery, error) {
	ds, err := s.Store.ClaimNotifications(ctx, owner, lease, limit)
	if err != nil {
		return nil, err
	}
	out := ds[:0]
	for _, d := range ds {
		c, err := s.unseal(d.Channel)
		if err == nil {
			d.Channel = c
			out = append(out, d)
			continue
		}
		if s.Warn != nil {
			fmt.Fprintf(s.Warn, "bonsai: warning: notification %d not delivered: %v\n", d.ID, err)
		}
		o := board.Outcome{Err: err.Error()}
		if d.Attempts < notify.MaxAttempts {
			o.RetryAt = s.now().Add(notify.Backoff(d.Attempts))
		}
		if err := s.Store.SettleNotification(context.WithoutCancel(ctx), d.ID, owner, o); err != nil && board.ErrorCode(err) != board.ECONFLICT {
			return nil, err
		}
	}
	return out, nil
}

func (s Sealed) now() time.Time {
	if s.Now != nil {
		return s.Now()
	}
	return time.Now()
}

// unseal returns c with its sealed settings opened; plain ones, stored
// before settings were sealed, are kept as they are.
func (s Sealed) unseal(c board.Channel) (board.Channel, error) {
	var open map[string]string
	for _, k := range sealedSettings {
		v := c.Settings[k]
		if v == "" {
			continue
		}
		if open == nil {
			open = maps.Clone(c.Settings)
		}
		ks, err := s.Keys()
		if err == nil {
			open[k], err = ks.Unseal(SecretName(c.Name, k), v)
		}
		if err != nil {
			return c, fmt.Errorf("channel %s: its %s cannot be unsealed: %w; or remove the channel ('bonsai notify rm %s') and add it again", c.Name, k, err, c.Name)
		}
	}
	if open != nil {
		c.Settings = open
	}
	return c, nil
}

// Unwrap returns the store under a Sealed one, or s itself.
func Unwrap(s store.Store) store.Store {
	if sc, ok := s.(Sealed); ok {
		return sc.Store
	}
	return s
}

// ChannelSecrets returns the secrets of every channel of s that opens,
// even when another does not: what a redactor must scrub.
func ChannelSecrets(ctx context.Context, s store.Store) []string {
	var cs []board.Channel
	if sc, ok := s.(Sealed); ok {
		cs, _ = sc.OpenChannels(ctx)
	} else if all, err := s.Channels(ctx); err == nil {
		cs = all
	}
	var out []string
	for _, c := range cs {
		out = append(out, notify.Secrets(c)...)
	}
	return out
}
