package web

import (
	"net/http"
	"time"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/config"
	"github.com/bonsai-run/bonsai/internal/llm"
	"github.com/bonsai-run/bonsai/internal/store"
	"github.com/bonsai-run/bonsai/internal/view"
)

// providerVars is a provider's (or forge's) row on the settings page: the
// variables llm.Providers says it reads, where its key comes from, and
// whether a base URL is set. Values are never shown: a base URL may hold
// a password.
type providerVars struct {
	llm.ProviderInfo
	Key        KeySource
	BaseURLSet bool
	// Forge marks the github and gitlab tokens, which have no base URL.
	Forge bool
}

type settingView struct {
	config.Setting
	Error string
}

type settingsView struct {
	Status     view.Status
	Settings   []settingView
	Providers  []providerVars
	ConfigFile string
	LastRun    time.Time
	LastBeat   time.Time     // zero when no beat is known
	BeatTook   time.Duration // how long the last beat ran
	NextBeat   time.Time     // the last beat plus the interval
	Interval   int
	Service    bool   // the heartbeat service is installed
	Manager    string // the service manager, e.g. systemd
	Saved      bool
	Error      string          // a problem with the file itself
	Projects   []board.Project // archived ones too: their settings page unarchives them
	Model      string          // the configured default model
	// CanStore reports a credential store: keys can be set and removed.
	CanStore bool
	KeyError string // why keys could not be listed, stored or removed
	KeysDone string // "stored" or "removed" after the keys form
}

func (s *Server) settingsPage(w http.ResponseWriter, r *http.Request) error {
	v := settingsView{Saved: r.URL.Query().Get("saved") == "1"}
	switch r.URL.Query().Get("keys") {
	case "stored", "removed":
		v.KeysDone = r.URL.Query().Get("keys")
	}
	c, _ := s.loadConfigOrDefault(&v)
	return s.renderSettings(w, r, http.StatusOK, v, c)
}

// loadConfigOrDefault reads config.json into v's settings; a file that
// cannot be read shows its error and the defaults.
func (s *Server) loadConfigOrDefault(v *settingsView) (config.Config, error) {
	c, err := config.Load(s.opts.Dir.ConfigFile())
	if err != nil {
		v.Error = err.Error()
		c = config.Default()
	}
	for _, st := range c.List() {
		v.Settings = append(v.Settings, settingView{Setting: st})
	}
	return c, err
}

func (s *Server) renderSettings(w http.ResponseWriter, r *http.Request, status int, v settingsView, c config.Config) error {
	var err error
	if v.Status, err = s.status(r.Context()); err != nil {
		return err
	}
	if v.Projects, err = s.store.Projects(r.Context(), store.ProjectFilter{IncludeArchived: true}); err != nil {
		return err
	}
	v.Model = c.Model
	var keyErr string
	v.Providers, keyErr = s.keyRows()
	if v.KeyError == "" {
		v.KeyError = keyErr
	}
	v.CanStore = s.opts.Credentials != nil
	v.ConfigFile, v.LastRun, v.Interval = s.opts.Dir.ConfigFile(), s.runs.last(), c.Heartbeat.IntervalSec
	v.Service, v.Manager = s.opts.Service()
	if s.opts.LastBeat != nil {
		if started, took, ok := s.opts.LastBeat(); ok {
			v.LastBeat, v.BeatTook = started, took
			v.NextBeat = started.Add(time.Duration(v.Interval) * time.Second)
		}
	}
	s.render(w, r, status, "settings", pageData{Title: "Status and settings", Data: v})
	return nil
}

// saveSettings writes config.json through the same validation as
// `bonsai config set`: every changed key is set from its text, and nothing
// is written unless every key is valid.
func (s *Server) saveSettings(w http.ResponseWriter, r *http.Request) error {
	if r.PostForm.Has("_keys") {
		return s.saveKeys(w, r)
	}
	path := s.opts.Dir.ConfigFile()
	c, err := config.Load(path)
	if err != nil {
		return &httpError{status: http.StatusConflict, code: "conflict",
			msg: "config.json cannot be read, so it is not overwritten: " + err.Error()}
	}
	var v settingsView
	failed := false
	next := c
	for _, st := range c.List() {
		sv := settingView{Setting: st}
		if val, ok := r.PostForm[st.Key]; ok && len(val) == 1 && val[0] != st.Value {
			sv.Value = val[0]
			if n, err := next.Set(st.Key, val[0]); err != nil {
				sv.Error, failed = err.Error(), true
			} else {
				next = n
			}
		}
		v.Settings = append(v.Settings, sv)
	}
	if !failed {
		if err := config.Save(path, next); err != nil {
			v.Error, failed = err.Error(), true
		}
	}
	if failed {
		return s.renderSettings(w, r, http.StatusBadRequest, v, c)
	}
	http.Redirect(w, r, "/settings?saved=1", http.StatusSeeOther)
	return nil
}
