package web

import (
	"net/http"
	"strings"
	"time"

	"github.com/bonsai-run/bonsai/internal/llm"
)

// Credentials is the credential store the settings page shows and
// changes: where each provider's key (and each forge's token) comes from,
// and setting, replacing or removing a stored one. The web UI never reads
// a stored value.
type Credentials interface {
	// KeySources says where each name's key comes from, providers first.
	KeySources() ([]KeySource, error)
	// SetKey stores secret under name, replacing what was there.
	SetKey(name, secret string) error
	// RemoveKey removes the value stored under name.
	RemoveKey(name string) error
}

// KeySource is where one provider's key or one forge's token comes from;
// never the value.
type KeySource struct {
	// Name is the provider ("anthropic") or forge ("github").
	Name string
	// Source is "environment", "stored" or "none".
	Source string
	// Variable is the environment variable that gives the key, or would.
	Variable string
	// Last4 is the key's last four characters, when it is long enough.
	Last4 string
	// SetAt is when a stored key was set.
	SetAt time.Time
	// Shadowed reports a stored key the environment overrides.
	Shadowed bool
}

// keyRows returns the settings page's rows of keys: every provider of
// llm.Providers, with the forges after them when a credential store is
// there. Without one, the source is the environment's or none.
func (s *Server) keyRows() ([]providerVars, string) {
	var rows []providerVars
	for _, p := range llm.Providers() {
		src := KeySource{Name: p.Name, Source: "none", Variable: p.KeyEnv}
		if s.opts.Getenv(p.KeyEnv) != "" {
			src.Source = "environment"
		}
		rows = append(rows, providerVars{ProviderInfo: p, Key: src, BaseURLSet: s.opts.Getenv(p.BaseURLEnv) != ""})
	}
	if s.opts.Credentials == nil {
		return rows, ""
	}
	srcs, err := s.opts.Credentials.KeySources()
	if err != nil {
		return rows, err.Error()
	}
	for _, src := range srcs {
		found := false
		for i := range rows {
			if rows[i].Name == src.Name {
				rows[i].Key, found = src, true
			}
		}
		if !found {
			rows = append(rows, providerVars{ProviderInfo: llm.ProviderInfo{Name: src.Name, KeyEnv: src.Variable}, Key: src, Forge: true})
		}
	}
	return rows, ""
}

// saveKeys handles the keys form of the settings page: each non-empty
// field stores its key; a Remove button removes one. Values are never
// shown back, not even after an error.
func (s *Server) saveKeys(w http.ResponseWriter, r *http.Request) error {
	if s.opts.Credentials == nil {
		return &httpError{status: http.StatusNotFound, code: "not_found", msg: "this server keeps no credentials"}
	}
	v := settingsView{}
	c, _ := s.loadConfigOrDefault(&v)
	if name := r.PostForm.Get("remove"); name != "" {
		if err := s.opts.Credentials.RemoveKey(name); err != nil {
			v.KeyError = err.Error()
			return s.renderSettings(w, r, http.StatusBadRequest, v, c)
		}
		http.Redirect(w, r, "/settings?keys=removed#keys", http.StatusSeeOther)
		return nil
	}
	srcs, err := s.opts.Credentials.KeySources()
	if err != nil {
		return err
	}
	stored := 0
	for _, src := range srcs {
		secret := strings.TrimSpace(r.PostForm.Get("key-" + src.Name))
		if secret == "" {
			continue
		}
		if err := s.opts.Credentials.SetKey(src.Name, secret); err != nil {
			v.KeyError = src.Name + ": " + err.Error()
			return s.renderSettings(w, r, http.StatusBadRequest, v, c)
		}
		stored++
	}
	if stored == 0 {
		v.KeyError = "no key was entered: paste a key into a provider's field, then press Store keys"
		return s.renderSettings(w, r, http.StatusBadRequest, v, c)
	}
	http.Redirect(w, r, "/settings?keys=stored#keys", http.StatusSeeOther)
	return nil
}
