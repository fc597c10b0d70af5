package web

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"net/http"
	"strings"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/hook"
	"github.com/bonsai-run/bonsai/internal/store"
)

// hookRow is a hook as the hooks page lists it: never its secret.
type hookRow struct {
	board.Hook
	Deliveries []board.HookDelivery
}

type hooksView struct {
	Hooks    []hookRow
	Projects []board.Project
	Schemes  []board.HookScheme
	Actions  []board.HookAction
	Form     map[string]string // the add form's values after an error
	Error    string
	Notice   string
	// Added is the hook just added and its secret, shown this once.
	Added, Secret string
	Enabled       bool // the server can seal secrets: hooks can be added
}

func (s *Server) hooksPage(w http.ResponseWriter, r *http.Request) error {
	v := hooksView{}
	if r.URL.Query().Get("done") == "removed" {
		v.Notice = "Removed hook " + r.URL.Query().Get("hook")
	}
	return s.renderHooks(w, r, http.StatusOK, v)
}

func (s *Server) renderHooks(w http.ResponseWriter, r *http.Request, status int, v hooksView) error {
	ctx := r.Context()
	hs, err := s.store.HookList(ctx)
	if err != nil {
		return err
	}
	for _, h := range hs {
		h.Secret = "" // secrets never reach the template
		ds, err := s.store.HookDeliveries(ctx, h.Name, 10)
		if err != nil {
			return err
		}
		v.Hooks = append(v.Hooks, hookRow{Hook: h, Deliveries: ds})
	}
	if v.Projects, err = s.store.Projects(ctx, store.ProjectFilter{}); err != nil {
		return err
	}
	v.Schemes, v.Actions, v.Enabled = board.HookSchemes(), board.HookActions(), s.opts.HookSecrets != nil
	s.render(w, r, status, "hooks", pageData{Title: "Hooks", Data: v})
	return nil
}

// hookForm is the hook the add form describes.
func hookForm(f map[string][]string) (board.Hook, map[string]string) {
	get := func(k string) string {
		if v := f[k]; len(v) > 0 {
			return strings.TrimSpace(v[0])
		}
		return ""
	}
	form := map[string]string{}
	for _, k := range []string{"name", "project", "scheme", "action", "header", "events", "when", "title", "description", "criteria", "target", "state"} {
		form[k] = get(k)
	}
	h := board.Hook{Name: form["name"], ProjectSlug: form["project"], Scheme: board.HookScheme(form["scheme"]), Header: form["header"],
		Action: board.HookAction(form["action"]), Target: form["target"], Title: form["title"], Description: form["description"],
		State: board.State(form["state"]), When: map[string]string{}, Priority: board.DefaultPriority}
	for _, e := range strings.Split(form["events"], ",") {
		if e = strings.TrimSpace(e); e != "" {
			h.Events = append(h.Events, e)
		}
	}
	for _, line := range strings.Split(form["when"], "\n") {
		if k, v, ok := strings.Cut(strings.TrimSpace(line), "="); ok && strings.TrimSpace(k) != "" {
			h.When[strings.TrimSpace(k)] = strings.TrimSpace(v)
		}
	}
	for _, c := range strings.Split(form["criteria"], "\n") {
		if c = strings.TrimSpace(c); c != "" {
			h.Criteria = append(h.Criteria, c)
		}
	}
	return h, form
}

// addHook adds a hook from the form with a secret made for it, shown on
// the answer page once and never again.
func (s *Server) addHook(w http.ResponseWriter, r *http.Request) error {
	h, form := hookForm(r.PostForm)
	fail := func(err error) error {
		return s.renderHooks(w, r, http.StatusBadRequest, hooksView{Form: form, Error: err.Error()})
	}
	if s.opts.HookSecrets == nil {
		return fail(errors.New("this server cannot seal secrets; use bonsai hook add"))
	}
	buf := make([]byte, 32)
	if _, err := rand.Read(buf); err != nil {
		return err
	}
	secret := hex.EncodeToString(buf)
	if err := board.ValidateHookName(h.Name); err != nil {
		return fail(err)
	}
	sealed, err := s.opts.HookSecrets.Seal(hook.SecretName(h.Name), secret)
	if err != nil {
		return fail(errors.New("the secret could not be sealed: " + err.Error()))
	}
	h.Secret = sealed
	if _, err := s.store.CreateHook(r.Context(), h); err != nil {
		return fail(err)
	}
	w.Header().Set("Cache-Control", "no-store")
	return s.renderHooks(w, r, http.StatusOK, hooksView{Added: h.Name, Secret: secret,
		Notice: "Added hook " + h.Name + ": paste its address and secret into the sender's webhook form now"})
}

func (s *Server) removeHook(w http.ResponseWriter, r *http.Request) error {
	name := r.PathValue("name")
	if err := s.store.DeleteHook(r.Context(), name); err != nil {
		return err
	}
	http.Redirect(w, r, "/settings/hooks?done=removed&hook="+name, http.StatusSeeOther)
	return nil
}
