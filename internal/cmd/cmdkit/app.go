// Package cmdkit is what the command families under internal/cmd share:
// the process's streams and environment, its data directory, config.json
// and board opened on first use (functions internal/cli fills in, the only
// place concrete stores are opened), and the helpers every family uses:
// usage errors, positional argument checks, the --priority flag, JSON
// output, flag suggestions and the model id checks.
package cmdkit

import (
	"context"
	"io"
	"time"

	"github.com/bonsai-run/bonsai/internal/config"
	"github.com/bonsai-run/bonsai/internal/credentials"
	"github.com/bonsai-run/bonsai/internal/store"
)

// App is what a command of a family takes from the running bonsai
// command. internal/cli builds one per invocation; every function is set.
type App struct {
	Stdin          io.Reader
	Stdout, Stderr io.Writer
	// Env reads the process environment only; Getenv reads it too and
	// falls back to the stored credential of a key or token variable and
	// to config.json's base URL of a provider.
	Env, Getenv func(string) string
	Now         func() time.Time

	// DataDir returns the data directory, creating its layout on first
	// use.
	DataDir func() (config.Dir, error)
	// Config loads and validates config.json; ForgetConfig drops the
	// copy it keeps, before the file is written.
	Config       func() (config.Config, error)
	ForgetConfig func()
	// OpenStore opens the board, once per invocation; StoreURL is the
	// Postgres URL of a board that lives there, "" for bonsai.db.
	OpenStore func(context.Context) (store.Store, error)
	StoreURL  func() (string, error)
	// Keys is the process's view of its credentials (the environment,
	// then credentials.json).
	Keys func() *credentials.Env
}

// Author is the name recorded on a person's comments and moves.
func (a *App) Author() string { return Author(a.Getenv) }

// Author is the name recorded on a person's comments and moves:
// $BONSAI_USER, else the login name, else "human".
func Author(getenv func(string) string) string {
	for _, k := range []string{"BONSAI_USER", "USER", "USERNAME"} {
		if v := getenv(k); v != "" {
			return v
		}
	}
	return "human"
}
