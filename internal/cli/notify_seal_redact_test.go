package cli

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/notify"
	"github.com/bonsai-run/bonsai/internal/notify/outbox"
)

// TestSealedChannels_KeyGone: without the credentials key, listing the
// channels is an error naming the channel and the fix, while the redactor
// still holds the secrets of the channels stored plain before sealing.
func TestSealedChannels_KeyGone(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	env := map[string]string{"BONSAI_DATA_DIR": filepath.Join(t.TempDir(), "data"), "BONSAI_KEYRING": "file"}
	if err := seedData(env["BONSAI_DATA_DIR"]); err != nil { // a copy of the migrated board
		t.Fatal(err)
	}
	open := func() (*app, outbox.Sealed) {
		a := newApp(strings.NewReader(""), io.Discard, io.Discard, func(k string) string { return env[k] })
		t.Cleanup(func() { a.close() })
		st, err := a.openStore(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return a, st.(outbox.Sealed)
	}
	_, st := open()
	if _, err := st.AddChannel(ctx, board.Channel{Name: "ci", Kind: board.ChannelWebhook,
		Settings: map[string]string{notify.KeyURL: "https://ci.example.com/hook", notify.KeySecret: "sealed-secret-0001"}}); err != nil {
		t.Fatal(err)
	}
	// Plain, as a database from before sealing holds it.
	if _, err := st.Store.AddChannel(ctx, board.Channel{Name: "old", Kind: board.ChannelWebhook,
		Settings: map[string]string{notify.KeyURL: "https://old.example.com/hook", notify.KeySecret: "plain-secret-0002"}}); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(env["BONSAI_DATA_DIR"], "credentials.key")); err != nil {
		t.Fatal(err)
	}
	a, st := open() // another process: no key in memory
	_, err := st.Channels(ctx)
	if err == nil || !strings.Contains(err.Error(), "channel ci:") || !strings.Contains(err.Error(), "bonsai notify rm ci") {
		t.Fatalf("Channels without the key: %v", err)
	}
	if out := secrets(ctx, a, st).String("x plain-secret-0002 y"); strings.Contains(out, "plain-secret-0002") {
		t.Errorf("the redactor lost the plain channel's secret: %s", out)
	}
}
