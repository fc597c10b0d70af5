package outbox

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"reflect"
	"strings"
	"testing"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/notify"
	"github.com/bonsai-run/bonsai/internal/store"
)

// memChannels is a store holding channels and blockers in memory; the
// methods the tests do not call panic through the nil store.Store.
type memChannels struct {
	store.Store
	channels []board.Channel
	blockers map[string][]string
}

func (m *memChannels) AddChannel(_ context.Context, c board.Channel) (board.Channel, error) {
	m.channels = append(m.channels, c)
	return c, nil
}

func (m *memChannels) Channels(context.Context) ([]board.Channel, error) {
	out := make([]board.Channel, len(m.channels))
	copy(out, m.channels)
	return out, nil
}

func (m *memChannels) NoteBlockers(_ context.Context, slug string, causes []string) (int, error) {
	if m.blockers == nil {
		m.blockers = map[string][]string{}
	}
	m.blockers[slug] = causes
	return len(causes), nil
}

// prefixKeys seals by a reversible rewrite that names the value's name,
// and refuses a value sealed under another name.
type prefixKeys struct{}

func (prefixKeys) Seal(name, v string) (string, error) { return "sealed:" + name + ":" + v, nil }

func (prefixKeys) Unseal(name, v string) (string, error) {
	rest, ok := strings.CutPrefix(v, "sealed:"+name+":")
	if !ok {
		return "", errors.New("sealed under another name")
	}
	return rest, nil
}

func TestSealed_SealsSecretsAndOpensThem(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	mem := &memChannels{}
	s := Sealed{Store: mem, Keys: func() (Keys, error) { return prefixKeys{}, nil }}
	c := board.Channel{Name: "ci", Kind: board.ChannelWebhook,
		Settings: map[string]string{notify.KeyURL: "https://ci.example.com/hook", notify.KeySecret: "s3cret-signing-key"}}
	if _, err := s.AddChannel(ctx, c); err != nil {
		t.Fatal(err)
	}
	if got := mem.channels[0].Settings[notify.KeySecret]; got != "sealed:notify/ci/secret:s3cret-signing-key" {
		t.Errorf("stored secret = %q, want it sealed under the channel's name", got)
	}
	cs, err := s.Channels(ctx)
	if err != nil || len(cs) != 1 || !reflect.DeepEqual(cs[0].Settings, c.Settings) {
		t.Fatalf("Channels = %v, %v; want the settings as added", cs, err)
	}
	// A sealed value copied to another channel does not open there.
	moved := mem.channels[0]
	moved.Name = "copy"
	mem.channels = append(mem.channels, moved)
	if _, err := s.Channels(ctx); err == nil || !strings.Contains(err.Error(), "bonsai notify rm copy") {
		t.Errorf("Channels with a moved secret: %v; want the fix naming the channel", err)
	}
	if got := ChannelSecrets(ctx, s); !slicesContain(got, "s3cret-signing-key") {
		t.Errorf("ChannelSecrets = %q; want the channel that opens", got)
	}
}

func slicesContain(ss []string, want string) bool {
	for _, s := range ss {
		if strings.Contains(s, want) {
			return true
		}
	}
	return false
}

func TestNewChannel_PutsTheSecretWhereTheKindKeepsIt(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		kind board.ChannelKind
		f    Flags
		key  string
	}{
		{board.ChannelWebhook, Flags{URL: "https://ci.example.com/hook"}, notify.KeySecret},
		{board.ChannelNtfy, Flags{URL: "https://ntfy.sh/topic"}, notify.KeyToken},
		{board.ChannelSlack, Flags{}, notify.KeyURL},
	} {
		secret := "https://hooks.slack.com/services/T0/B0/xyzxyzxyz"
		if tc.kind != board.ChannelSlack {
			secret = "secret-value-123"
		}
		c, err := NewChannel("n", tc.kind, tc.f, secret)
		if err != nil {
			t.Errorf("%s: %v", tc.kind, err)
			continue
		}
		if c.Settings[tc.key] != secret {
			t.Errorf("%s: settings %v, want the secret under %s", tc.kind, c.Settings, tc.key)
		}
	}
	_, err := NewChannel("n", board.ChannelSlack, Flags{URL: "https://hooks.slack.com/services/a"}, "https://hooks.slack.com/services/b")
	if board.ErrorCode(err) != board.EINVALID {
		t.Errorf("slack with the URL twice: %v; want invalid", err)
	}
	_, err = NewChannel("n", board.ChannelDesktop, Flags{}, "secret")
	if board.ErrorCode(err) != board.EINVALID {
		t.Errorf("desktop with a secret: %v; want invalid", err)
	}
	c, err := NewChannel("n", board.ChannelDesktop, Flags{Events: "question, review", Project: "demo"}, "")
	if err != nil || !reflect.DeepEqual(c.Kinds, []board.NotifyKind{"question", "review"}) || c.ProjectSlug != "demo" {
		t.Errorf("desktop: %+v, %v", c, err)
	}
}

func TestNoteBlockers_OneCausePerPause(t *testing.T) {
	t.Parallel()
	mem := &memChannels{}
	NoteBlockers(context.Background(), mem, []Attempt{
		{Ticket: "demo#1", Skipped: "provider anthropic is paused until 2026-05-01T12:00:00Z"},
		{Ticket: "demo#2", Skipped: "no time left in this beat"},
		{Ticket: "web#3"},
		{Ticket: "calm#4", Skipped: "a process of its previous run still runs"},
	}, slog.New(slog.NewTextHandler(&bytes.Buffer{}, nil)))
	want := map[string][]string{"demo": {"provider anthropic is paused"}, "web": nil}
	if !reflect.DeepEqual(mem.blockers, want) {
		t.Errorf("blockers = %q, want %q", mem.blockers, want)
	}
}

func TestWriteList_TableAndFailures(t *testing.T) {
	t.Parallel()
	var b bytes.Buffer
	if err := WriteList(&b, nil, nil); err != nil || !strings.Contains(b.String(), "No channels.") {
		t.Fatalf("empty: %q, %v", b.String(), err)
	}
	b.Reset()
	views := []ChannelView{{Name: "ci", Kind: board.ChannelWebhook, Target: "ci.example.com", Pending: 2}}
	failed := []board.Notification{{ChannelName: "ci", Kind: "review", Ticket: "demo#1", Attempts: 8, LastError: "HTTP 500"}}
	if err := WriteList(&b, views, failed); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"ci    webhook  all      all     ci.example.com  2        0", "demo#1 after 8 attempt(s): HTTP 500"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("list lacks %q:\n%s", want, b.String())
		}
	}
}
