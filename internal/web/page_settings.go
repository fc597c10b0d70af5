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

// providerVars is a provider's row on the settings page: the variables
// llm.Providers says it reads, and whether the server's environment sets
// them. Their values are never shown: a base URL may hold a password.
type providerVars struct {
	llm.ProviderInfo
	KeySet     bool
	BaseURLSet bool
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
}

func (s *Server) settingsPage(w http.ResponseWriter, r *http.Request) error {
	c, err := config.Load(s.opts.Dir.ConfigFile())
	v := settingsView{Saved: r.URL.Query().Get("saved") == "1"}
	if err != nil {
		v.Error = err.Error()
		c = config.Default()
	}
	for _, st := range c.List() {
		v.Settings = append(v.Settings, settingView{Setting: st})
	}
	return s.renderSettings(w, r, http.StatusOK, v, c)
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
	for _, p := range llm.Providers() {
		v.Providers = append(v.Providers, providerVars{ProviderInfo: p,
			KeySet: s.opts.Getenv(p.KeyEnv) != "", BaseURLSet: s.opts.Getenv(p.BaseURLEnv) != ""})
	}
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
