package credentials

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestEnv_EnvironmentThenStore: the environment wins; a key or token
// variable it does not set comes from credentials.json, read again when
// the file changes; sources and presence read the list, never a key; a
// store whose key is gone warns once.
func TestEnv_EnvironmentThenStore(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	vars := map[string]string{"OPENAI_API_KEY": "sk-env-openai-0001", KeyringEnv: KindFile}
	var warn bytes.Buffer
	e := &Env{Getenv: func(k string) string { return vars[k] }, Dir: func() (string, error) { return dir, nil }, Warn: &warn}
	if got := e.Lookup("ANTHROPIC_API_KEY"); got != "" {
		t.Fatalf("nothing stored: %q", got)
	}
	s, err := e.Store()
	if err != nil {
		t.Fatal(err)
	}
	for name, v := range map[string]string{"anthropic": "sk-ant-stored-0002", "openai": "sk-openai-stored-0003", "github": "ghp_stored-00004"} {
		if err := s.Set(name, v); err != nil {
			t.Fatal(err)
		}
	}
	for k, want := range map[string]string{"ANTHROPIC_API_KEY": "sk-ant-stored-0002", "OPENAI_API_KEY": "sk-env-openai-0001",
		"GH_TOKEN": "ghp_stored-00004", "GROQ_API_KEY": "", "HOME": ""} {
		if got := e.Lookup(k); got != want {
			t.Errorf("Lookup(%s) = %q, want %q", k, got, want)
		}
	}
	// Another process changes the file.
	if err := Open(dir, Options{}).Set("anthropic", "sk-ant-replaced-0005"); err != nil {
		t.Fatal(err)
	}
	if got := e.Lookup("ANTHROPIC_API_KEY"); got != "sk-ant-replaced-0005" {
		t.Errorf("after a change: %q", got)
	}
	srcs, err := e.Sources()
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]Source{}
	for _, s := range srcs {
		got[s.Name] = s
	}
	if a := got["anthropic"]; a.Source != SourceStored || a.Last4 != "0005" {
		t.Errorf("anthropic: %+v", a)
	}
	if o := got["openai"]; o.Source != SourceEnv || !o.Shadowed || o.Variable != "OPENAI_API_KEY" {
		t.Errorf("openai: %+v", o)
	}
	if g := got["groq"]; g.Source != SourceNone {
		t.Errorf("groq: %+v", g)
	}

	// Without its key, presence still answers from the list; a lookup
	// warns once and finds nothing.
	if err := os.Rename(filepath.Join(dir, "credentials.key"), filepath.Join(dir, "elsewhere")); err != nil {
		t.Fatal(err)
	}
	f := &Env{Getenv: e.Getenv, Dir: e.Dir, Warn: &warn}
	if f.KeySource("anthropic") != SourceStored || f.KeySource("openai") != SourceEnv || f.KeySource("groq") != "" {
		t.Errorf("KeySource = %q %q %q", f.KeySource("anthropic"), f.KeySource("openai"), f.KeySource("groq"))
	}
	if got := f.Lookup("ANTHROPIC_API_KEY"); got != "" {
		t.Errorf("without the key: %q", got)
	}
	f.Lookup("GITHUB_TOKEN")
	if n := strings.Count(warn.String(), "warning: stored credentials:"); n != 1 {
		t.Errorf("warnings:\n%s", warn.String())
	}
}

func TestLastFour_OnlyOfLongSecrets(t *testing.T) {
	t.Parallel()
	if LastFour("short-1234") != "" || LastFour("sk-long-enough-9876") != "9876" {
		t.Errorf("LastFour: %q %q", LastFour("short-1234"), LastFour("sk-long-enough-9876"))
	}
}
