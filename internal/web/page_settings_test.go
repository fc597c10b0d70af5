package web

import (
	"strings"
	"testing"

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
			key = `<span class="badge ok">set</span>`
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
