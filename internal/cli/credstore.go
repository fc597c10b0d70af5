package cli

import (
	"fmt"
	"os"
	"sync"
	"time"

	"github.com/bonsai-run/bonsai/internal/config"
	"github.com/bonsai-run/bonsai/internal/credentials"
	"github.com/bonsai-run/bonsai/internal/llm"
)

// keyringEnv forces where the key of a new credentials.json goes: file,
// keychain or secret-service (docs/credentials.md).
const keyringEnv = "BONSAI_KEYRING"

// credentialEnv maps each variable a stored credential stands in for to
// its name: the providers' key variables and the forge tokens.
var credentialEnv = sync.OnceValue(func() map[string]string {
	m := map[string]string{}
	for _, n := range credentials.Names() {
		for _, e := range n.Env {
			m[e] = n.Name
		}
	}
	return m
})

// storedCreds is the process's view of credentials.json: read on the
// first lookup the environment cannot answer, and again whenever the file
// changes (the web UI or another command set a key).
type storedCreds struct {
	mu     sync.Mutex
	store  *credentials.Store
	stamp  fileStamp
	values map[string]string
	warned string
	// cfg is config.json as last read, for the providers' base URLs.
	cfg      config.Config
	cfgStamp fileStamp
	cfgPath  string
}

// fileStamp tells whether a file changed since it was read. Files are
// replaced by a rename on every write, so the file's identity (its inode)
// changes even when two writes fall in one tick of the file system's
// clock and keep the size.
type fileStamp struct {
	fi os.FileInfo
}

func stampOf(path string) fileStamp {
	fi, err := os.Stat(path)
	if err != nil {
		return fileStamp{}
	}
	return fileStamp{fi: fi}
}

// exists reports whether the file was there.
func (s fileStamp) exists() bool { return s.fi != nil }

// same reports whether s and o saw the same version of the file.
func (s fileStamp) same(o fileStamp) bool {
	if s.fi == nil || o.fi == nil {
		return s.fi == o.fi
	}
	return os.SameFile(s.fi, o.fi) && s.fi.ModTime().Equal(o.fi.ModTime()) && s.fi.Size() == o.fi.Size()
}

// lookupEnv is app.getenv: the environment first, then, for a key or
// token variable, the stored credential, and for a provider's base URL
// variable, config.json's providers.<name>.baseURL. Nothing is read from the data
// directory while the environment answers, so commands run with keys in
// the environment start as fast as before.
func (a *app) lookupEnv(k string) string {
	if v := a.env(k); v != "" {
		return v
	}
	if p, ok := baseURLEnv()[k]; ok {
		return a.configuredBaseURL(p)
	}
	name, ok := credentialEnv()[k]
	if !ok {
		return ""
	}
	return a.storedValue(name)
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
	a.creds.mu.Lock()
	defer a.creds.mu.Unlock()
	d := a.dir
	if d == "" {
		var err error
		if d, err = config.DefaultDir(a.env); err != nil {
			return ""
		}
	}
	st := stampOf(d.ConfigFile())
	if !st.same(a.creds.cfgStamp) || !st.exists() || a.creds.cfgPath != d.ConfigFile() {
		c, err := config.Load(d.ConfigFile())
		if err != nil {
			c = config.Config{}
		}
		a.creds.cfg, a.creds.cfgStamp, a.creds.cfgPath = c, st, d.ConfigFile()
	}
	return a.creds.cfg.BaseURL(p)
}

// credentialStore returns the credential store of the data directory,
// without creating the directory.
func (a *app) credentialStore() (*credentials.Store, error) {
	a.creds.mu.Lock()
	defer a.creds.mu.Unlock()
	return a.credentialStoreLocked()
}

func (a *app) credentialStoreLocked() (*credentials.Store, error) {
	if a.creds.store != nil {
		return a.creds.store, nil
	}
	d := a.dir
	if d == "" {
		var err error
		if d, err = config.DefaultDir(a.env); err != nil {
			return nil, err
		}
	}
	a.creds.store = credentials.Open(string(d), credentials.Options{Keyring: a.env(keyringEnv), Now: a.now})
	return a.creds.store, nil
}

// storedValue returns the stored credential name, reading credentials.json
// again when it changed. A store that cannot be read is a warning, once per
// problem, and no value: the caller then says which variable to set.
func (a *app) storedValue(name string) string {
	a.creds.mu.Lock()
	defer a.creds.mu.Unlock()
	s, err := a.credentialStoreLocked()
	if err != nil {
		return ""
	}
	st := stampOf(s.Path())
	if !st.exists() {
		a.creds.values, a.creds.stamp = nil, st
		return ""
	}
	if !st.same(a.creds.stamp) {
		vals, err := s.All()
		if err != nil {
			if msg := err.Error(); msg != a.creds.warned {
				a.creds.warned = msg
				fmt.Fprintf(a.stderr, "bonsai: warning: stored credentials: %s\n", msg)
			}
			return ""
		}
		a.creds.values, a.creds.stamp = vals, st
	}
	return a.creds.values[name]
}

// forgetStored makes the next lookup read credentials.json again.
func (a *app) forgetStored() {
	a.creds.mu.Lock()
	a.creds.stamp, a.creds.values = fileStamp{}, nil
	a.creds.mu.Unlock()
}

// Where a credential comes from, as `credentials list`, `status` and the
// settings page say it.
const (
	sourceEnv    = "environment"
	sourceStored = "stored"
	sourceNone   = "none"
)

// credentialSource is where one name's secret comes from.
type credentialSource struct {
	Name   string `json:"name"`
	Source string `json:"source"` // environment, stored or none
	// Variable is the environment variable that gives it (Source
	// environment), or the one that would win over the stored value.
	Variable string    `json:"variable"`
	Last4    string    `json:"last4,omitempty"`
	SetAt    time.Time `json:"setAt,omitzero"`
	// Shadowed reports a stored value the environment overrides.
	Shadowed bool `json:"shadowed,omitempty"`
}

// credentialSources says, for every name, where its secret comes from. It
// reads credentials.json's list, never a key.
func (a *app) credentialSources() ([]credentialSource, error) {
	s, err := a.credentialStore()
	if err != nil {
		return nil, err
	}
	stored, err := s.List()
	if err != nil {
		return nil, err
	}
	byName := map[string]credentials.Entry{}
	for _, e := range stored {
		byName[e.Name] = e
	}
	var out []credentialSource
	for _, n := range credentials.Names() {
		cs := credentialSource{Name: n.Name, Source: sourceNone, Variable: n.Env[0]}
		e, isStored := byName[n.Name]
		for _, v := range n.Env {
			if val := a.env(v); val != "" {
				cs.Source, cs.Variable, cs.Last4 = sourceEnv, v, lastFour(val)
				cs.Shadowed = isStored
				break
			}
		}
		if cs.Source == sourceNone && isStored {
			cs.Source, cs.Last4, cs.SetAt = sourceStored, e.Last4, e.SetAt
		}
		out = append(out, cs)
	}
	return out, nil
}

// presenceEnv is a getenv for checks that only ask whether a key is set:
// the environment, else a placeholder for a stored credential, read from
// credentials.json's list without its key (no keychain call).
func (a *app) presenceEnv() func(string) string {
	var listed map[string]bool
	return func(k string) string {
		if v := a.env(k); v != "" {
			return v
		}
		name, ok := credentialEnv()[k]
		if !ok {
			return ""
		}
		if listed == nil {
			listed = map[string]bool{}
			if s, err := a.credentialStore(); err == nil {
				if es, err := s.List(); err == nil {
					for _, e := range es {
						listed[e.Name] = true
					}
				}
			}
		}
		if listed[name] {
			return "stored"
		}
		return ""
	}
}

// lastFour is what is shown of a secret: its last four characters when it
// is long enough for that to give little away.
func lastFour(v string) string {
	r := []rune(v)
	if len(r) < 12 {
		return ""
	}
	return string(r[len(r)-4:])
}
