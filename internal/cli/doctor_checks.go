package cli

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/config"
	"github.com/bonsai-run/bonsai/internal/credentials"
	"github.com/bonsai-run/bonsai/internal/doctor"
	"github.com/bonsai-run/bonsai/internal/llm"
	llmprovider "github.com/bonsai-run/bonsai/internal/llm/provider"
	"github.com/bonsai-run/bonsai/internal/store/sqlite"
	"github.com/bonsai-run/bonsai/internal/view"
)

// pingTimeout bounds doctor's request to each model provider.
const pingTimeout = 10 * time.Second

// configCheck loads config.json; on failure the defaults stand in, so
// that the checks after it still run.
func (a *app) configCheck() (config.Config, doctor.Check) {
	c := doctor.Check{Name: "config"}
	cfg, err := config.Load(a.dir.ConfigFile())
	if err != nil {
		c.Status, c.Detail, c.Fix = doctor.Fail, err.Error(), configFix(err)
		if c.Fix == "" {
			c.Fix = "make the file readable by you: chmod 600 " + a.dir.ConfigFile()
		}
		return config.Default(), c
	}
	c.Status, c.Detail = doctor.OK, a.dir.ConfigFile()+" is valid"
	return cfg, c
}

// databaseCheck runs sqlite.QuickCheck on bonsai.db; current reports a
// database that opens without a change (intact, its schema current).
func databaseCheck(ctx context.Context, d config.Dir) (doctor.Check, bool) {
	c := doctor.Check{Name: "database"}
	p := d.DB()
	h, err := sqlite.QuickCheck(ctx, p)
	backup := fmt.Sprintf("stop Bonsai (bonsai service uninstall, stop bonsai up), move %s aside and restore a backup of it", p)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		c.Status, c.Detail = doctor.Skip, p+" does not exist yet; the first board command creates it"
		return c, false
	case errors.Is(err, sqlite.ErrEmptyDatabase), errors.Is(err, sqlite.ErrNotDatabase):
		c.Status, c.Detail, c.Fix = doctor.Fail, err.Error(), backup
		return c, false
	case err != nil:
		c.Status, c.Detail, c.Fix = doctor.Fail, err.Error(), "make the file yours and readable: chmod 600 "+p
		return c, false
	case len(h.Problems) > 0:
		c.Status, c.Detail = doctor.Fail, fmt.Sprintf("PRAGMA quick_check found damage in %s: %s", p, strings.Join(h.Problems, "; "))
		c.Fix = backup + "; or salvage what SQLite can read: sqlite3 " + p + " .recover | sqlite3 recovered.db"
		return c, false
	case h.Version > h.Supported:
		c.Status, c.Detail = doctor.Fail, fmt.Sprintf("%s has schema version %d, newer than this bonsai knows (%d)", p, h.Version, h.Supported)
		c.Fix = "upgrade bonsai to the version that wrote it"
		return c, false
	case h.Version < h.Supported:
		c.Status, c.Detail = doctor.OK, fmt.Sprintf("%s is intact; schema version %d, which the next command migrates to %d", p, h.Version, h.Supported)
		return c, false
	}
	c.Status, c.Detail = doctor.OK, fmt.Sprintf("%s is intact (PRAGMA quick_check); schema version %d", p, h.Version)
	return c, true
}

// clockReading is a provider's clock, read from the Date of its answer.
type clockReading struct {
	local, remote time.Time
	source        string
}

// modelChecks checks the default model and each active project's: a key
// is set, and the provider accepts it, asked once per provider with a
// request that costs no tokens. The first answer gives the clock check
// its reading.
func (a *app) modelChecks(ctx context.Context, cfg config.Config, projects []board.Project) ([]doctor.Check, clockReading) {
	// The default model comes first, used or not: new projects get it.
	withDefault := append([]board.Project{{Active: true}}, projects...)
	statuses := modelStatuses(a.getenv, a.keySource, cfg, withDefault)
	type answer struct {
		listing llm.Listing
		base    string
		took    time.Duration
		err     error
	}
	answers := map[string]answer{}
	var clock clockReading
	var out []doctor.Check
	for _, m := range statuses {
		c := doctor.Check{Name: "model " + m.Model}
		used := usedBy(m, cfg.Model)
		mid, idErr := llm.ParseModelID(m.Model)
		if m.Problem != "" || idErr != nil {
			c.Status, c.Detail, c.Fix = doctor.Fail, m.Problem+used, modelFix(m, mid)
			out = append(out, c)
			continue
		}
		ans, asked := answers[mid.Provider]
		if !asked {
			pctx, cancel := context.WithTimeout(ctx, pingTimeout)
			start := time.Now()
			l, base, err := llmprovider.ListModels(pctx, m.Model, llmprovider.Options{Getenv: a.getenv})
			cancel()
			ans = answer{listing: l, base: base, took: time.Since(start).Round(time.Millisecond), err: err}
			answers[mid.Provider] = ans
			if err == nil && clock.remote.IsZero() && !l.Date.IsZero() {
				clock = clockReading{local: a.now(), remote: l.Date, source: mid.Provider}
			}
		}
		c.Status, c.Detail, c.Fix = pingVerdict(m, mid, ans.listing, ans.base, ans.took, ans.err)
		c.Detail += used
		out = append(out, c)
	}
	return out, clock
}

// usedBy says which projects use the model, and whether it is the
// default, as the end of a detail.
func usedBy(m view.ModelStatus, defaultModel string) string {
	var who []string
	if m.Model == defaultModel {
		who = append(who, "the default")
	}
	for _, p := range m.Projects {
		if p != "" {
			who = append(who, p)
		}
	}
	return "; used by " + strings.Join(who, ", ")
}

// modelFix says how to make a model agents cannot use usable.
func modelFix(m view.ModelStatus, mid llm.ModelID) string {
	if p, ok := llm.LookupProvider(mid.Provider); ok && strings.Contains(m.Problem, "no API key") {
		return fmt.Sprintf("bonsai credentials set %s (the service reads stored keys; %s works only where it is exported)", p.Name, p.KeyEnv)
	}
	return "choose a model Bonsai knows: bonsai config set model <provider/model>, or bonsai project edit <slug> --model <provider/model>"
}

// pingVerdict turns a provider's answer to the model list into a status,
// detail and fix.
func pingVerdict(m view.ModelStatus, mid llm.ModelID, l llm.Listing, base string, took time.Duration, err error) (doctor.Status, string, string) {
	source := ""
	switch m.KeySource {
	case credentials.SourceEnv:
		source = "the key from the environment"
	case credentials.SourceStored:
		source = "the stored key"
	}
	p, _ := llm.LookupProvider(mid.Provider)
	replace := fmt.Sprintf("replace it: bonsai credentials set %s", p.Name)
	if m.KeySource == credentials.SourceEnv {
		replace = fmt.Sprintf("fix or unset %s (then the stored key is used), or store a good one: bonsai credentials set %s", p.KeyEnv, p.Name)
	}
	baseFix := fmt.Sprintf("check the network, or the provider's address: bonsai config set providers.%s.baseURL <url> (now %s)", p.Name, llm.HidePassword(base))
	var le *llm.Error
	errors.As(err, &le)
	switch {
	case err == nil && len(l.Models) > 0 && !l.Has(mid.Model):
		return doctor.Warn, fmt.Sprintf("%s answered with %s, but does not list %s", p.Name, source, mid.Model),
			fmt.Sprintf("check the model's name (%s lists %s), then bonsai config set model or bonsai project edit --model", p.Name, sample(l.Models))
	case err == nil && p.Name == "openrouter":
		// OpenRouter lists its models to anyone: the answer proves the
		// address, not the key.
		return doctor.OK, fmt.Sprintf("openrouter answered (%s); its model list needs no key, so the key is tried by the first run", took), ""
	case err == nil:
		what := "answered"
		if source != "" {
			what = "accepts " + source
		}
		return doctor.OK, fmt.Sprintf("%s %s (%s)", p.Name, what, took), ""
	case errors.Is(err, context.DeadlineExceeded):
		return doctor.Fail, fmt.Sprintf("%s did not answer within %s at %s", p.Name, pingTimeout, llm.HidePassword(base)), baseFix
	case llm.KindOf(err) == llm.KindAuth && le != nil && le.Status != 0:
		return doctor.Fail, fmt.Sprintf("%s refused %s (HTTP %d: %s)", p.Name, source, le.Status, le.Message), replace
	case le != nil && le.Status == http.StatusNotFound:
		return doctor.Fail, fmt.Sprintf("%s has no model list at %s: %s", p.Name, llm.HidePassword(base), le.Message), baseFix
	case llm.KindOf(err) == llm.KindRateLimit || llm.KindOf(err) == llm.KindOverloaded:
		return doctor.Warn, fmt.Sprintf("%s is busy: %s", p.Name, llmMessage(err)), "wait and run bonsai doctor again; agents retry by themselves"
	case le != nil && le.Status != 0:
		return doctor.Fail, fmt.Sprintf("%s answered HTTP %d: %s", p.Name, le.Status, le.Message), baseFix
	}
	return doctor.Fail, fmt.Sprintf("cannot reach %s at %s: %s", p.Name, llm.HidePassword(base), llmMessage(err)), baseFix
}

// sample names up to three of the listed models.
func sample(models []string) string {
	if len(models) > 3 {
		return strings.Join(models[:3], ", ") + ", …"
	}
	return strings.Join(models, ", ")
}

// sandboxName names this system's sandbox: bubblewrap on Linux, Seatbelt
// on macOS, none elsewhere (sandboxAvailable then says why).
func sandboxName() string {
	switch runtime.GOOS {
	case "linux":
		return "bubblewrap"
	case "darwin":
		return "Seatbelt"
	}
	return ""
}

// sandboxChecks checks that the sandbox can run, failing when an active
// project requires it (the default), and warns of projects that run
// their agents' commands on the host.
func sandboxChecks(projects []board.Project, listed bool) []doctor.Check {
	var required, off []string
	for _, p := range projects {
		if p.Agent.Sandbox == board.SandboxOff {
			off = append(off, p.Slug)
		} else {
			required = append(required, p.Slug)
		}
	}
	c := doctor.Check{Name: "sandbox"}
	name, err := sandboxName(), sandboxAvailable()
	switch {
	case err == nil:
		c.Status, c.Detail = doctor.OK, name+" can run agents' commands here"
	case len(required) > 0:
		c.Status, c.Detail = doctor.Fail, fmt.Sprintf("%v; agents of %s cannot run commands", err, strings.Join(required, ", "))
		c.Fix = sandboxFix(required)
	case !listed || len(off) == 0:
		// No project yet: new projects require the sandbox.
		c.Status, c.Detail, c.Fix = doctor.Warn, err.Error()+"; new projects require it", sandboxFix(nil)
	default:
		c.Status, c.Detail = doctor.Skip, err.Error()+"; no active project requires it"
	}
	out := []doctor.Check{c}
	if len(off) > 0 {
		slices.Sort(off)
		out = append(out, doctor.Check{Name: "sandbox off", Status: doctor.Warn,
			Detail: fmt.Sprintf("agents of %s run commands on the host as you, outside any sandbox", strings.Join(off, ", ")),
			Fix:    fmt.Sprintf("bonsai project edit %s --sandbox required", off[0])})
	}
	return out
}

// sandboxFix says how to get a sandbox on this system.
func sandboxFix(required []string) string {
	switch runtime.GOOS {
	case "linux":
		return "install bubblewrap (apt-get install bubblewrap, dnf install bubblewrap); in a container, allow user namespaces"
	case "darwin":
		return "sandbox-exec ships with macOS; run Bonsai outside another sandbox"
	}
	p := "<slug>"
	if len(required) > 0 {
		p = required[0]
	}
	return fmt.Sprintf("run Bonsai on Linux, macOS or WSL, or accept commands on the host: bonsai project edit %s --sandbox off", p)
}

// credentialsCheck reads the stored credentials, as every beat would: a
// credentials.json whose key is gone leaves the service without keys.
func (a *app) credentialsCheck() doctor.Check {
	c := doctor.Check{Name: "credentials"}
	s, err := a.credentialStore()
	if err != nil {
		c.Status, c.Detail = doctor.Skip, err.Error()
		return c
	}
	aside := fmt.Sprintf("move %s aside and store the keys again: bonsai credentials set <provider>", s.Path())
	entries, err := s.List()
	if err != nil {
		c.Status, c.Detail, c.Fix = doctor.Fail, err.Error(), aside
		return c
	}
	if len(entries) == 0 {
		c.Status, c.Detail = doctor.Skip, "none stored; keys come from the environment only (bonsai credentials set stores one the service can read)"
		return c
	}
	names := make([]string, len(entries))
	for i, e := range entries {
		names[i] = e.Name
	}
	if _, err := s.All(); err != nil {
		kr, _ := s.Keyring()
		c.Status, c.Detail = doctor.Fail, err.Error()
		c.Fix = fmt.Sprintf("restore the key (kept in %s), or %s", kr, aside)
		return c
	}
	kr, _ := s.Keyring()
	c.Status, c.Detail = doctor.OK, fmt.Sprintf("%s stored, readable with the key in %s", strings.Join(names, ", "), kr)
	return c
}
