package provider_test

import (
	"context"
	"encoding/json"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/bonsai-run/bonsai/internal/llm"
	"github.com/bonsai-run/bonsai/internal/llm/catalog"
	"github.com/bonsai-run/bonsai/internal/llm/llmtest"
	"github.com/bonsai-run/bonsai/internal/llm/provider"
)

// recorder is a getenv that remembers the variables asked for.
type recorder struct {
	mu   sync.Mutex
	vars map[string]string
	read map[string]bool
}

func (r *recorder) getenv(k string) string {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.read[k] = true
	return r.vars[k]
}

// TestProviders_TableAndWiringAgree: every provider of llm.Providers
// resolves to the adapter of its wire format, which sends the table's key
// and headers to the base URL its variable names; and Resolve reads no
// provider variable the table does not name.
func TestProviders_TableAndWiringAgree(t *testing.T) {
	limits := map[string]bool{provider.IdleTimeoutEnv: true, provider.MaxResponseBytesEnv: true}
	for _, p := range llm.Providers() {
		t.Run(p.Name, func(t *testing.T) {
			def, err := url.Parse(p.DefaultBaseURL)
			if err != nil || def.Scheme == "" || def.Host == "" {
				t.Fatalf("default base URL %q: %v", p.DefaultBaseURL, err)
			}
			srv := llmtest.NewServer(t, llmtest.ServerTurn{Message: llm.Message{Content: []llm.Part{llm.Text("hi")}}})
			rec := &recorder{read: map[string]bool{}, vars: map[string]string{p.KeyEnv: "k-" + p.Name, p.BaseURLEnv: srv.URL + def.Path}}
			r, err := provider.Resolve(p.Name+"/some-model", provider.Options{Getenv: rec.getenv})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := llm.Collect(r.Model.Stream(context.Background(), llm.Request{Messages: []llm.Message{llm.UserText("hello")}})); err != nil {
				t.Fatal(err)
			}
			want := map[llm.WireFormat]string{llm.WireAnthropicMessages: "/v1/messages", llm.WireOpenAIChat: "/chat/completions"}[p.Wire]
			if want == "" {
				t.Fatalf("wire format %q: this test knows no request path for it", p.Wire)
			}
			req := srv.Requests()[0]
			header, value := "Authorization", "Bearer k-"+p.Name
			if p.AuthHeader != "" {
				header, value = p.AuthHeader, "k-"+p.Name
			}
			if req.Path != def.Path+want || req.Header.Get(header) != value {
				t.Errorf("request to %s with %s %q; want %s with the key of %s", req.Path, header, req.Header.Get(header), def.Path+want, p.KeyEnv)
			}
			if header != "Authorization" && req.Header.Get("Authorization") != "" {
				t.Errorf("the key also went in Authorization: %q", req.Header.Get("Authorization"))
			}
			for k, v := range p.Headers {
				if req.Header.Get(k) != v {
					t.Errorf("header %s = %q, want %q", k, req.Header.Get(k), v)
				}
			}
			for k := range rec.read {
				if k != p.KeyEnv && k != p.BaseURLEnv && !limits[k] {
					t.Errorf("Resolve read %s, which the table does not name for %s", k, p.Name)
				}
			}
			if !rec.read[p.KeyEnv] || !rec.read[p.BaseURLEnv] {
				t.Errorf("Resolve read %v; want %s and %s among them", rec.read, p.KeyEnv, p.BaseURLEnv)
			}
		})
	}
}

// TestProviders_ReasoningWire: a provider with a reasoning wire format
// speaks it for the models the catalog marks as thinking, and its usual
// one for the others.
func TestProviders_ReasoningWire(t *testing.T) {
	paths := map[llm.WireFormat]string{llm.WireOpenAIChat: "/chat/completions", llm.WireOpenAIResponses: "/responses"}
	for _, p := range llm.Providers() {
		if p.ReasoningWire == "" {
			continue
		}
		cat, err := catalog.New(map[string]json.RawMessage{p.Name + "/reasoner": json.RawMessage(`{"thinking":true}`)})
		if err != nil {
			t.Fatal(err)
		}
		def, _ := url.Parse(p.DefaultBaseURL)
		for model, wire := range map[string]llm.WireFormat{"reasoner": p.ReasoningWire, "plain": p.Wire} {
			srv := llmtest.NewServer(t, llmtest.ServerTurn{Message: llm.Message{Content: []llm.Part{llm.Text("hi")}}})
			r, err := provider.Resolve(p.Name+"/"+model, provider.Options{Catalog: cat,
				Getenv: env(map[string]string{p.KeyEnv: "k", p.BaseURLEnv: srv.URL + def.Path})})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := llm.Collect(r.Model.Stream(context.Background(), llm.Request{Messages: []llm.Message{llm.UserText("hello")}})); err != nil {
				t.Fatal(err)
			}
			if got, want := srv.Requests()[0].Path, def.Path+paths[wire]; got != want || provider.Wire(p, r.Info) != wire {
				t.Errorf("%s/%s: request to %s, want %s (%s)", p.Name, model, got, want, wire)
			}
		}
	}
}

// TestProviders_KeyOptionalMeansResolvableWithoutKey: Check and Resolve
// ask for a key exactly when the table says it is required.
func TestProviders_KeyOptionalMeansResolvableWithoutKey(t *testing.T) {
	for _, p := range llm.Providers() {
		err := provider.Check(p.Name+"/m", env(nil))
		if p.KeyOptional != (err == nil) {
			t.Errorf("%s: key optional %v, Check without key: %v", p.Name, p.KeyOptional, err)
		}
	}
}

// TestProviders_VariablesAreSpelledOnce: no Go file but the table spells a
// provider's variable, so every reader goes through llm.Providers.
func TestProviders_VariablesAreSpelledOnce(t *testing.T) {
	root, err := filepath.Abs(filepath.Join("..", "..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	table := filepath.Join(root, "internal", "llm", "providers.go")
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && strings.HasPrefix(d.Name(), ".") && path != root {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") || path == table {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for _, p := range llm.Providers() {
			for _, v := range []string{p.KeyEnv, p.BaseURLEnv} {
				if strings.Contains(string(src), `"`+v+`"`) {
					t.Errorf("%s spells %s: read it from llm.Providers", path, v)
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
