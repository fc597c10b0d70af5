package web

import (
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/bonsai-run/bonsai/internal/credentials"
	"github.com/bonsai-run/bonsai/internal/llm"
)

// TestSettings_ListsEveryProvidersVariables: the settings page has a row
// for each provider of llm.Providers with the key and base URL variables
// the provider reads, set or not, and never a value.
func TestSettings_ListsEveryProvidersVariables(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	c := e.browser(t)
	vars := map[string]string{"ANTHROPIC_API_KEY": "sk-secret-value", "OLLAMA_BASE_URL": "http://me:base-secret@gpu.lan:11434/v1"}
	e.srv.opts.Getenv = func(k string) string { return vars[k] }
	r := e.get(t, c, "/settings")
	wantStatus(t, r, 200)
	for _, p := range llm.Providers() {
		key := `<span class="muted">not set</span>`
		if p.KeyOptional {
			key = `<span class="muted">not set (optional)</span>`
		}
		if vars[p.KeyEnv] != "" {
			key = `<span class="badge ok">set in the environment</span>`
		}
		base := `<span class="muted">not set: ` + p.DefaultBaseURL + `</span>`
		if vars[p.BaseURLEnv] != "" {
			base = `<span class="badge ok">set</span>`
		}
		wantBody(t, r, "<tr><td>"+p.Name+"</td><td><code>"+p.KeyEnv+"</code> "+key+"</td><td><code>"+p.BaseURLEnv+"</code> "+base+"</td></tr>")
	}
	for _, secret := range []string{"sk-secret-value", "base-secret"} {
		if strings.Contains(r.body, secret) {
			t.Errorf("the settings page shows %q", secret)
		}
	}
}

// storeCredentials is the settings page's Credentials on a real
// credentials.Store in a temporary data directory, with env as the
// environment, as `bonsai serve` wires it.
type storeCredentials struct {
	s   *credentials.Store
	env map[string]string
}

func (c storeCredentials) KeySources() ([]KeySource, error) {
	es, err := c.s.List()
	if err != nil {
		return nil, err
	}
	var out []KeySource
	for _, n := range credentials.Names() {
		ks := KeySource{Name: n.Name, Source: "none", Variable: n.Env[0]}
		i := slices.IndexFunc(es, func(e credentials.Entry) bool { return e.Name == n.Name })
		if v := c.env[n.Env[0]]; v != "" {
			ks.Source, ks.Shadowed = "environment", i >= 0
		} else if i >= 0 {
			ks.Source, ks.Last4, ks.SetAt = "stored", es[i].Last4, es[i].SetAt
		}
		out = append(out, ks)
	}
	return out, nil
}

func (c storeCredentials) SetKey(name, secret string) error { return c.s.Set(name, secret) }
func (c storeCredentials) RemoveKey(name string) error      { return c.s.Remove(name) }

// TestSettings_StoreAndRemoveKeys: the settings page stores a key typed
// into its write-only field, shows it as stored with its last four
// characters only, removes it with its Remove button, and refuses a form
// without the CSRF token.
func TestSettings_StoreAndRemoveKeys(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	c := e.browser(t)
	dir := t.TempDir()
	store := credentials.Open(dir, credentials.Options{Keyring: credentials.KindFile})
	e.srv.opts.Credentials = storeCredentials{s: store, env: map[string]string{"ANTHROPIC_API_KEY": "sk-secret-value"}}

	r := e.get(t, c, "/settings")
	wantStatus(t, r, 200)
	wantBody(t, r, `<input type="password" id="key-openai" name="key-openai"`, `<td>github</td><td><code>GH_TOKEN</code> <span class="muted">not set</span>`,
		`<span class="muted">forge token</span>`, `name="_keys"`)
	if strings.Contains(r.body, `id="remove-openai"`) {
		t.Fatal("a Remove button for a key that is not stored")
	}

	const key = "sk-openai-typed-in-the-page-7777"
	r = e.post(t, c, "/settings", url.Values{"_keys": {"1"}, "key-openai": {" " + key + " "}, "key-groq": {""}})
	wantStatus(t, r, http.StatusSeeOther)
	if got, ok, err := store.Get("openai"); err != nil || !ok || got != key {
		t.Fatalf("stored openai = %q, %v, %v", got, ok, err)
	}
	if _, ok, _ := store.Get("groq"); ok {
		t.Fatal("an empty field stored a key")
	}
	r = e.get(t, c, "/settings?keys=stored")
	wantBody(t, r, "Stored, encrypted in the data directory.",
		`<td>openai</td><td><code>OPENAI_API_KEY</code> <span class="badge ok">stored ••••7777</span>`, `id="remove-openai"`,
		`placeholder="paste to replace"`)
	if strings.Contains(r.body, key) || strings.Contains(r.body, "sk-secret-value") {
		t.Fatal("the settings page shows a key")
	}

	// A bad key is refused and not shown back.
	r = e.post(t, c, "/settings", url.Values{"_keys": {"1"}, "key-gemini": {"two\nlines-secret"}})
	wantStatus(t, r, http.StatusBadRequest)
	wantBody(t, r, "gemini: the key holds a control character")
	if strings.Contains(r.body, "lines-secret") {
		t.Fatal("a refused key is shown back")
	}
	r = e.post(t, c, "/settings", url.Values{"_keys": {"1"}})
	wantStatus(t, r, http.StatusBadRequest)
	wantBody(t, r, "no key was entered")

	// Without the CSRF token nothing changes.
	req, _ := http.NewRequest(http.MethodPost, e.ts.URL+"/settings", strings.NewReader(url.Values{"_keys": {"1"}, "remove": {"openai"}}.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	if r := send(t, c, req); r.status != http.StatusForbidden {
		t.Fatalf("a form without the CSRF token: status %d", r.status)
	}

	r = e.post(t, c, "/settings", url.Values{"_keys": {"1"}, "remove": {"openai"}, "key-groq": {"ignored-when-removing-0000"}})
	wantStatus(t, r, http.StatusSeeOther)
	if _, ok, _ := store.Get("openai"); ok {
		t.Fatal("Remove left the key")
	}
	if _, ok, _ := store.Get("groq"); ok {
		t.Fatal("a Remove stored the other fields")
	}
	wantBody(t, e.get(t, c, "/settings?keys=removed"), "Removed the stored key.", `<td>openai</td><td><code>OPENAI_API_KEY</code> <span class="muted">not set</span>`)
	r = e.post(t, c, "/settings", url.Values{"_keys": {"1"}, "remove": {"openai"}})
	wantStatus(t, r, http.StatusBadRequest)
	wantBody(t, r, "no credential is stored for openai")
}
