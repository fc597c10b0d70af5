package cli

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/bonsai-run/bonsai/internal/credentials"
)

// TestStoredCredentials_Seam: app.getenv answers key, token and base URL
// variables the environment does not set from credentials.json and
// config.json, the environment winning; the redactor holds stored keys;
// a change to the file is seen by the same process; status's presence
// check reads no key.
func TestStoredCredentials_Seam(t *testing.T) {
	t.Parallel()
	data := filepath.Join(t.TempDir(), "data")
	env := map[string]string{"BONSAI_DATA_DIR": data, "OPENAI_API_KEY": "sk-env-openai-0001"}
	var warn bytes.Buffer
	a := newApp(strings.NewReader(""), io.Discard, &warn, func(k string) string { return env[k] })
	if got := a.getenv("ANTHROPIC_API_KEY"); got != "" {
		t.Fatalf("no store yet: ANTHROPIC_API_KEY = %q", got)
	}
	if _, err := os.Stat(data); !os.IsNotExist(err) {
		t.Fatal("a lookup created the data directory")
	}
	d, err := a.dataDir()
	if err != nil {
		t.Fatal(err)
	}
	s := credentials.Open(string(d), credentials.Options{Keyring: credentials.KindFile})
	for name, v := range map[string]string{"anthropic": "sk-ant-stored-0002", "openai": "sk-openai-stored-0003", "github": "ghp_stored-0004"} {
		if err := s.Set(name, v); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(d.ConfigFile(), []byte(`{"providers": {"ollama": {"baseURL": "http://bob:pw-secret-0005@gpu:11434/v1"}}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	for k, want := range map[string]string{
		"ANTHROPIC_API_KEY": "sk-ant-stored-0002",
		"OPENAI_API_KEY":    "sk-env-openai-0001", // the environment wins
		"GITHUB_TOKEN":      "ghp_stored-0004",
		"GH_TOKEN":          "ghp_stored-0004",
		"OLLAMA_BASE_URL":   "http://bob:pw-secret-0005@gpu:11434/v1",
		"GROQ_API_KEY":      "",
		"HOME":              "", // not a credential variable
	} {
		if got := a.getenv(k); got != want {
			t.Errorf("getenv(%s) = %q, want %q", k, got, want)
		}
	}
	r := secrets(context.Background(), a, nil)
	if out := r.String("a sk-ant-stored-0002 b ghp_stored-0004 c pw-secret-0005"); strings.Contains(out, "stored") || strings.Contains(out, "pw-secret-0005") {
		t.Errorf("the redactor misses stored secrets: %s", out)
	}
	if got := storedForgeTokens(a); !slices.Equal(got, []string{"GH_TOKEN=ghp_stored-0004", "GITHUB_TOKEN=ghp_stored-0004"}) {
		t.Errorf("storedForgeTokens = %q", got)
	}

	// Another process (the web UI, a command) changes the file.
	if err := s.Set("anthropic", "sk-ant-replaced-0006"); err != nil {
		t.Fatal(err)
	}
	if got := a.getenv("ANTHROPIC_API_KEY"); got != "sk-ant-replaced-0006" {
		t.Errorf("after a change ANTHROPIC_API_KEY = %q", got)
	}

	// Without its key the presence check still answers from the list,
	// and a lookup warns once and finds nothing.
	os.Rename(filepath.Join(string(d), "credentials.key"), filepath.Join(string(d), "elsewhere"))
	if err := credentials.Open(string(d), credentials.Options{}).Set("groq", "gsk-stored-0007"); err == nil {
		t.Fatal("Set worked without the key")
	}
	b := newApp(strings.NewReader(""), io.Discard, &warn, func(k string) string { return env[k] })
	if got := b.presenceEnv()("ANTHROPIC_API_KEY"); got == "" {
		t.Error("presenceEnv does not see the stored anthropic key")
	}
	if b.keySource("anthropic") != credentials.SourceStored || b.keySource("openai") != credentials.SourceEnv || b.keySource("groq") != "" {
		t.Errorf("keySource = %q %q %q", b.keySource("anthropic"), b.keySource("openai"), b.keySource("groq"))
	}
	if got := b.getenv("ANTHROPIC_API_KEY"); got != "" {
		t.Errorf("without the key ANTHROPIC_API_KEY = %q", got)
	}
	b.getenv("GITHUB_TOKEN")
	if n := strings.Count(warn.String(), "warning: stored credentials:"); n != 1 || !strings.Contains(warn.String(), "is gone") {
		t.Errorf("warnings:\n%s", warn.String())
	}
}
