package web

import (
	"bytes"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"fmt"
	"html/template"
	"io/fs"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/termsafe"
	"github.com/bonsai-run/bonsai/internal/view"
)

//go:embed templates/*.html
var templateFS embed.FS

//go:embed static
var staticFS embed.FS

// assetVersion changes whenever a static file does; asset URLs carry it so
// browsers may cache them for good. It is computed on first use, not at
// package initialisation, which every bonsai process pays.
var assetVersion = sync.OnceValue(func() string {
	h := sha256.New()
	fs.WalkDir(staticFS, "static", func(path string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			b, _ := staticFS.ReadFile(path)
			h.Write([]byte(path))
			h.Write(b)
		}
		return nil
	})
	return hex.EncodeToString(h.Sum(nil))[:12]
})

// pageData is what every page template gets.
type pageData struct {
	Title   string
	CSRF    string
	Asset   string
	Project string // slug of the current project, for the header
	NoNav   bool   // the visitor is not logged in: no navigation
	// Blockers are why agents cannot run, the banner above every page.
	Blockers []view.Blocker
	// NextSteps are what a person does before agents can work, until
	// done (Options.NextSteps).
	NextSteps []view.Step
	Data      any
}

// parsePages parses every page template with the shared layout and partials.
// Files starting with "_" are shared; each other file is one page.
func parsePages(funcs template.FuncMap) (map[string]*template.Template, error) {
	base, err := template.New("").Funcs(funcs).ParseFS(templateFS, "templates/_*.html")
	if err != nil {
		return nil, fmt.Errorf("parse templates: %w", err)
	}
	names, err := fs.Glob(templateFS, "templates/*.html")
	if err != nil {
		return nil, err
	}
	pages := map[string]*template.Template{"": base}
	for _, n := range names {
		file := strings.TrimPrefix(n, "templates/")
		if strings.HasPrefix(file, "_") {
			continue
		}
		t, err := template.Must(base.Clone()).ParseFS(templateFS, n)
		if err != nil {
			return nil, fmt.Errorf("parse %s: %w", file, err)
		}
		pages[strings.TrimSuffix(file, ".html")] = t
	}
	return pages, nil
}

var bufPool = sync.Pool{New: func() any { return new(bytes.Buffer) }}

// render executes the page template name into a buffer first, so a template
// failure is a clean 500 and not half a page.
func (s *Server) render(w http.ResponseWriter, r *http.Request, status int, name string, d pageData) {
	d.CSRF, d.Asset = s.auth.csrf, assetVersion()
	if !d.NoNav {
		d.Blockers = s.blockers(r.Context())
		d.NextSteps = s.nextSteps(r.Context())
	}
	s.execute(w, r, status, name, "layout", d)
}

// fragment renders one named template of the shared set (a card, a thread)
// for htmx.
func (s *Server) fragment(w http.ResponseWriter, r *http.Request, status int, tmpl string, data any) {
	s.execute(w, r, status, "", tmpl, data)
}

func (s *Server) execute(w http.ResponseWriter, r *http.Request, status int, page, tmpl string, data any) {
	t, ok := s.pages[page]
	if !ok {
		s.fail(w, r, fmt.Errorf("no page template %q", page))
		return
	}
	buf := bufPool.Get().(*bytes.Buffer)
	buf.Reset()
	defer bufPool.Put(buf)
	if err := t.ExecuteTemplate(buf, tmpl, data); err != nil {
		s.log.Error("render", "page", page, "template", tmpl, "err", err)
		http.Error(w, "the page failed to render; the details are in logs/web.log", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	w.Write(buf.Bytes())
}

// funcs are the template helpers.
func (s *Server) funcs() template.FuncMap {
	return template.FuncMap{
		"md":        s.md.Render,
		"humanSize": board.HumanSize,
		"prio":      board.PriorityName,
		"states":    func() []board.State { return board.States },
		"prioNames": func() []string { return []string{"urgent", "high", "medium", "low", "none"} },
		"stateName": stateName,
		"money":     board.USD,
		"money4":    func(f float64) string { return fmt.Sprintf("$%.4f", f) },
		"mb":        megabytes,
		"ago":       func(t time.Time) string { return relTime(s.opts.Now(), t) },
		"iso":       func(t time.Time) string { return t.UTC().Format(time.RFC3339) },
		"ms":        func(t time.Time) int64 { return t.UnixMilli() },
		"dur":       formatDuration,
		// elapsed is how long ago a running tool call started, as the
		// page's script keeps counting it (data-since).
		"elapsed": func(t time.Time) string { return elapsed(s.opts.Now().Sub(t)) },
		"nowms":   func() int64 { return s.opts.Now().UnixMilli() },
		"lower":   strings.ToLower,
		// visible shows a held command's control characters and bidi
		// overrides as escapes: the command approved reads as it runs.
		"visible": termsafe.Text,
		// the Schedules page (schedules.go)
		"list":         func(v ...string) []string { return v },
		"scheduleForm": scheduleForm,
		"clock":        func(t time.Time) string { return t.Local().Format("15:04:05") },
		"firstLine": func(s string) string {
			s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
			if r := []rune(s); len(r) > 120 {
				s = string(r[:120]) + "…"
			}
			return s
		},
		"add": func(a, b int) int { return a + b },
		"capField": func(name, label, value, def string, errs fieldErrors) capField {
			return capField{Name: name, Label: label, Value: value, Default: def, Error: errs[name]}
		},
		"banner": func(p board.Project, back string) archivedBanner { return archivedBanner{Project: p, Back: back} },
		"csrf":   func() string { return s.auth.csrf },
		// agentsStopped reports a blocker that stops agents, not only the
		// following of pull requests or issues (view.Blocker.StopsAgents).
		"agentsStopped": func(bs []view.Blocker) bool { return slices.ContainsFunc(bs, view.Blocker.StopsAgents) },
		"blockedBy": func(bs []view.Blocker, slug string) string {
			for _, b := range bs {
				if b.StopsAgents() && slices.Contains(b.Projects, slug) {
					return b.Reason
				}
			}
			return ""
		},
		"asset": assetVersion,
	}
}

// capField is one budget cap input of the project settings form.
type capField struct{ Name, Label, Value, Default, Error string }

// archivedBanner is the notice an archived project's pages show; Back is
// the page the unarchive button returns to ("board" or the settings).
type archivedBanner struct {
	Project board.Project
	Back    string
}

// stateName is a state as people read it: "In progress".
func stateName(st board.State) string {
	switch st {
	case board.Backlog:
		return "Backlog"
	case board.Research:
		return "Research"
	case board.InProgress:
		return "In progress"
	case board.Verification:
		return "Verification"
	case board.Done:
		return "Done"
	}
	return string(st)
}

// relTime describes t relative to now, as "3 minutes ago".
func relTime(now, t time.Time) string {
	if t.IsZero() {
		return "-"
	}
	d := now.Sub(t)
	if d < 0 {
		d = 0
	}
	n := func(v time.Duration, unit string) string {
		if v == 1 {
			return "1 " + unit + " ago"
		}
		return fmt.Sprintf("%d %ss ago", v, unit)
	}
	switch {
	case d < time.Minute:
		return "just now"
	case d < time.Hour:
		return n(d/time.Minute, "minute")
	case d < 24*time.Hour:
		return n(d/time.Hour, "hour")
	case d < 48*time.Hour:
		return "yesterday"
	case d < 30*24*time.Hour:
		return n(d/(24*time.Hour), "day")
	}
	return t.Format("Jan 2, 2006")
}

// formatDuration prints a run's duration compactly; "-" while it runs.
func formatDuration(d time.Duration) string {
	switch {
	case d <= 0:
		return "-"
	case d < time.Minute:
		return d.Round(100 * time.Millisecond).String()
	}
	return d.Round(time.Second).String()
}

// elapsed prints how long a tool call has run: "12 s", "3 min 05 s",
// "1 h 02 min"; app.js writes the same format as it counts.
func elapsed(d time.Duration) string {
	sec := int64(max(d, 0) / time.Second)
	switch {
	case sec < 60:
		return fmt.Sprintf("%d s", sec)
	case sec < 3600:
		return fmt.Sprintf("%d min %02d s", sec/60, sec%60)
	}
	return fmt.Sprintf("%d h %02d min", sec/3600, sec%3600/60)
}
