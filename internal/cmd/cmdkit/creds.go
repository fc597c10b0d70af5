package cmdkit

import (
	"io"
	"os"
	"sync"
	"time"

	"github.com/bonsai-run/bonsai/internal/config"
	"github.com/bonsai-run/bonsai/internal/credentials"
	"github.com/bonsai-run/bonsai/internal/llm"
)

// Creds is a process's view of its secrets: credentials.json
// (credentials.Env) and config.json's providers' base URLs, each read
// again when its file changes.
type Creds struct {
	// Env reads the process environment; Warn and Now go to
	// credentials.Env; Dir is the data directory once found, "" before
	// (the default one is used then, without creating it).
	Env  func(string) string
	Warn io.Writer
	Now  func() time.Time
	Dir  func() config.Dir

	once sync.Once
	keys *credentials.Env
	cfg  config.Watched
}

// Keys is the process's credentials.Env: the environment, then the
// credential store of the data directory (not created by a lookup).
func (c *Creds) Keys() *credentials.Env {
	c.once.Do(func() {
		c.keys = &credentials.Env{Getenv: c.Env, Warn: c.Warn, Now: c.Now,
			Dir: func() (string, error) {
				d, err := c.dir()
				return string(d), err
			}}
	})
	return c.keys
}

// dir is the data directory: Dir's, else the default one.
func (c *Creds) dir() (config.Dir, error) {
	if d := c.Dir(); d != "" {
		return d, nil
	}
	return config.DefaultDir(c.Env)
}

// Lookup is the process's getenv: the environment first, then, for a key
// or token variable, the stored credential, and for a provider's base
// URL variable, config.json's providers.<name>.baseURL ("" when unset or
// the file cannot be read: the command reports a broken config.json
// itself).
func (c *Creds) Lookup(k string) string {
	if v := c.Env(k); v != "" {
		return v
	}
	if p, ok := baseURLEnv()[k]; ok {
		d, err := c.dir()
		if err != nil {
			return ""
		}
		return c.cfg.Get(d.ConfigFile()).BaseURL(p)
	}
	return c.Keys().Lookup(k)
}

// Note records config.json as just loaded, so that Lookup does not read
// it again for the base URLs.
func (c *Creds) Note(path string, fi os.FileInfo, cfg config.Config) { c.cfg.Note(path, fi, cfg) }

// LoadConfig loads the config.json at path (config.Load), read again only
// when the file changed; the providers' base URLs then come from the same
// reading. ForgetConfig makes the next call read it.
func (c *Creds) LoadConfig(path string) (config.Config, error) { return c.cfg.Load(path) }

// ForgetConfig drops the config.json LoadConfig holds, before the file is
// written.
func (c *Creds) ForgetConfig() { c.cfg.Forget() }

// baseURLEnv maps each provider's base URL variable to the provider.
var baseURLEnv = sync.OnceValue(func() map[string]string {
	m := map[string]string{}
	for _, p := range llm.Providers() {
		m[p.BaseURLEnv] = p.Name
	}
	return m
})
