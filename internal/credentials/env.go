package credentials

import (
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"github.com/bonsai-run/bonsai/internal/llm"
)

// KeyringEnv forces where the key of a new credentials.json goes: file,
// keychain or secret-service (docs/credentials.md).
const KeyringEnv = "BONSAI_KEYRING"

// Where a secret comes from, as `credentials list`, `status` and the
// settings page say it.
const (
	SourceEnv    = "environment"
	SourceStored = "stored"
	SourceNone   = "none"
)

// Env is the process's view of its secrets: the environment first, then
// credentials.json, read on the first lookup the environment cannot
// answer and again whenever the file changes (the web UI or another
// command set a key). Nothing is read from the data directory while the
// environment answers. Its methods may be called from several
// goroutines; set its fields before the first call.
type Env struct {
	// Getenv reads the process environment.
	Getenv func(string) string
	// Dir returns the data directory, without creating it.
	Dir func() (string, error)
	// Now stamps the values set; nil means time.Now.
	Now func() time.Time
	// Warn receives a warning, once per problem, when credentials.json
	// cannot be read.
	Warn io.Writer

	mu     sync.Mutex
	store  *Store
	stamp  fileStamp
	values map[string]string
	warned string
}

// Store returns the credential store of the data directory.
func (e *Env) Store() (*Store, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.storeLocked()
}

func (e *Env) storeLocked() (*Store, error) {
	if e.store != nil {
		return e.store, nil
	}
	d, err := e.Dir()
	if err != nil {
		return nil, err
	}
	e.store = Open(d, Options{Keyring: e.Getenv(KeyringEnv), Now: e.Now})
	return e.store, nil
}

// Lookup returns the variable k: the environment's, else, for a key or
// token variable, the stored credential; "" otherwise.
func (e *Env) Lookup(k string) string {
	if v := e.Getenv(k); v != "" {
		return v
	}
	n, ok := ForEnv(k)
	if !ok {
		return ""
	}
	return e.Stored(n.Name)
}

// Stored returns the stored credential name, reading credentials.json
// again when it changed. A store that cannot be read is a warning, once
// per problem, and no value: the caller then says which variable to set.
func (e *Env) Stored(name string) string {
	e.mu.Lock()
	defer e.mu.Unlock()
	s, err := e.storeLocked()
	if err != nil {
		return ""
	}
	st := stampOf(s.Path())
	if !st.exists() {
		e.values, e.stamp = nil, st
		return ""
	}
	if !st.same(e.stamp) {
		vals, err := s.All()
		if err != nil {
			if msg := err.Error(); msg != e.warned && e.Warn != nil {
				e.warned = msg
				fmt.Fprintf(e.Warn, "bonsai: warning: stored credentials: %s\n", msg)
			}
			return ""
		}
		e.values, e.stamp = vals, st
	}
	return e.values[name]
}

// Forget makes the next lookup read credentials.json again.
func (e *Env) Forget() {
	e.mu.Lock()
	e.stamp, e.values = fileStamp{}, nil
	e.mu.Unlock()
}

// Source is where one name's secret comes from.
type Source struct {
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

// Sources says, for every name, where its secret comes from. It reads
// credentials.json's list, never a key.
func (e *Env) Sources() ([]Source, error) {
	s, err := e.Store()
	if err != nil {
		return nil, err
	}
	stored, err := s.List()
	if err != nil {
		return nil, err
	}
	byName := map[string]Entry{}
	for _, en := range stored {
		byName[en.Name] = en
	}
	var out []Source
	for _, n := range Names() {
		cs := Source{Name: n.Name, Source: SourceNone, Variable: n.Env[0]}
		en, isStored := byName[n.Name]
		for _, v := range n.Env {
			if val := e.Getenv(v); val != "" {
				cs.Source, cs.Variable, cs.Last4 = SourceEnv, v, LastFour(val)
				cs.Shadowed = isStored
				break
			}
		}
		if cs.Source == SourceNone && isStored {
			cs.Source, cs.Last4, cs.SetAt = SourceStored, en.Last4, en.SetAt
		}
		out = append(out, cs)
	}
	return out, nil
}

// Presence is a getenv for checks that only ask whether a key is set:
// the environment, else a placeholder for a stored credential, read from
// credentials.json's list without its key (no keychain call).
func (e *Env) Presence() func(string) string {
	var listed map[string]bool
	return func(k string) string {
		if v := e.Getenv(k); v != "" {
			return v
		}
		n, ok := ForEnv(k)
		if !ok {
			return ""
		}
		if listed == nil {
			listed = map[string]bool{}
			if s, err := e.Store(); err == nil {
				if es, err := s.List(); err == nil {
					for _, en := range es {
						listed[en.Name] = true
					}
				}
			}
		}
		if listed[n.Name] {
			return SourceStored
		}
		return ""
	}
}

// KeySource says where the key of provider comes from: SourceEnv,
// SourceStored (credentials.json, read without its key) or "".
func (e *Env) KeySource(provider string) string {
	p, ok := llm.LookupProvider(provider)
	if !ok {
		return ""
	}
	if e.Getenv(p.KeyEnv) != "" {
		return SourceEnv
	}
	if e.Presence()(p.KeyEnv) != "" {
		return SourceStored
	}
	return ""
}

// LastFour is what is shown of a secret: its last four characters when
// it is long enough for that to give little away.
func LastFour(v string) string {
	r := []rune(v)
	if len(r) < 12 {
		return ""
	}
	return string(r[len(r)-4:])
}

// ForgeTokenEnv names the variables holding forge tokens, which git's
// credential helpers read for clone, fetch and push.
var ForgeTokenEnv = []string{"GH_TOKEN", "GITHUB_TOKEN", "GITLAB_TOKEN", "GITEA_TOKEN"}

// TrackerTokenEnv names the variables holding the Linear and Jira tokens
// (the forges' trackers use ForgeTokenEnv).
var TrackerTokenEnv = []string{"LINEAR_API_KEY", "JIRA_API_TOKEN"}

// EnvSecrets returns the secrets getenv gives: every provider's key and
// the password of its base URL, and the forge tokens. A redactor holds
// them, so that text from a provider never shows them.
func EnvSecrets(getenv func(string) string) []string {
	var s []string
	for _, p := range llm.Providers() {
		s = append(s, getenv(p.KeyEnv))
		s = append(s, llm.URLSecrets(getenv(p.BaseURLEnv))...)
	}
	for _, k := range ForgeTokenEnv {
		s = append(s, getenv(k))
	}
	for _, k := range TrackerTokenEnv {
		s = append(s, getenv(k))
	}
	return s
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
