package cli

import "github.com/bonsai-run/bonsai/internal/credentials"

// keys is the process's credentials.Env (cmdkit.Creds.Keys).
func (a *app) keys() *credentials.Env { return a.creds.Keys() }

// credentialStore returns the credential store of the data directory,
// without creating the directory.
func (a *app) credentialStore() (*credentials.Store, error) { return a.keys().Store() }

// storedValue returns the stored credential name (credentials.Env.Stored).
func (a *app) storedValue(name string) string { return a.keys().Stored(name) }

// presenceEnv is a getenv for checks that only ask whether a key is set
// (credentials.Env.Presence).
func (a *app) presenceEnv() func(string) string { return a.keys().Presence() }

// keySource says where the key of provider comes from
// (credentials.Env.KeySource).
func (a *app) keySource(provider string) string { return a.keys().KeySource(provider) }
