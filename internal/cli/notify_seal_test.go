package cli_test

import (
	"context"
	"fmt"
	"path/filepath"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/notify"
	"github.com/bonsai-run/bonsai/internal/store/sqlite"
)

// cmdRawChannel reads and writes channels in bonsai.db directly, past the
// sealing the commands do, as a database from before sealing holds them:
//
//	rawchannel add <name> <url> <secret>   add a webhook with a plain secret
//	rawchannel show <name> <key>           print a setting as stored
func cmdRawChannel(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 1 {
		ts.Fatalf("usage: rawchannel add <name> <url> <secret> | show <name> <key>")
	}
	ctx := context.Background()
	db, err := sqlite.Open(ctx, filepath.Join(ts.Getenv("BONSAI_DATA_DIR"), "bonsai.db"))
	ts.Check(err)
	defer db.Close()
	switch {
	case args[0] == "add" && len(args) == 4:
		_, err := db.AddChannel(ctx, board.Channel{Name: args[1], Kind: board.ChannelWebhook,
			Settings: map[string]string{notify.KeyURL: args[2], notify.KeySecret: args[3]}})
		ts.Check(err)
	case args[0] == "show" && len(args) == 3:
		cs, err := db.Channels(ctx)
		ts.Check(err)
		for _, c := range cs {
			if c.Name == args[1] {
				fmt.Fprintln(ts.Stdout(), c.Settings[args[2]])
				return
			}
		}
		ts.Fatalf("rawchannel: no channel %q", args[1])
	default:
		ts.Fatalf("usage: rawchannel add <name> <url> <secret> | show <name> <key>")
	}
}
