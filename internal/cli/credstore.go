package cli

import (
	"sync"
	"time"

	"github.com/bonsai-run/bonsai/internal/config"
	"github.com/bonsai-run/bonsai/internal/credentials"
	"github.com/bonsai-run/bonsai/internal/llm"
)

// storedCreds is the process's view of credentials.json
// (credentials.Env) and of config.json's providers' base URLs.
type storedCreds struct {
	once sync.Once
	env  *credentials.Env
	// cfg is config.json as last read, for the providers' base URLs.
	cfg config.Watched
}

// keys is the process's credentials.Env: the environment, then the
// credential store of the data directory (not created by a lookup).
func (a *app) keys() *credentials.Env {
	a.creds.once.Do(func() {
		a.creds.env = &credentials.Env{Getenv: a.env, Warn: a.stderr, Now: func() time.Time { return a.now() },
			Dir: func() (string, error) {
				if a.dir != "" {
					return string(a.dir), nil
				}
				d, err := config.DefaultDir(a.env)
				return string(d), err
			}}
	})
	return a.creds.env
}

// lookupEnv is app.getenv: the environment first, then, for a key or
// token variable, the stored credential, and for a provider's base URL
// variable, config.json's providers.<name>.baseURL.
func (a *app) lookupEnv(k string) string {
	if v := a.env(k); v != "" {
		return v
	}
	if p, ok := baseURLEnv()[k]; ok {
		return a.configuredBaseURL(p)
	}
	return a.keys().Lookup(k)
}

// baseURLEnv maps each provider's base URL variable to the provider.
var baseURLEnv = sync.OnceValue(func() map[string]string {
	m := map[string]string{}
	for _, p := range llm.Providers() {
		m[p.BaseURLEnv] = p.Name
	}
	return m
})

// configuredBaseURL returns config.json's providers.<p>.baseURL, read
// again when the file changes; "" when unset or the file cannot be read
// (the command reports a broken config.json itself).
func (a *app) configuredBaseURL(p string) string {
	d := a.dir
	if d == "" {
		var err error
		if d, err = config.DefaultDir(a.env); err != nil {
			return ""
		}
	}
	return a.creds.cfg.Get(d.ConfigFile()).BaseURL(p)
}

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
