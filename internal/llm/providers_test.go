package llm_test

import (
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/bonsai-run/bonsai/internal/llm"
)

// TestDocsProviderTable: the provider table of docs/llm.md lists exactly
// llm.Providers, in order, with their variables and default base URLs.
func TestDocsProviderTable(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join("..", "..", "docs", "llm.md"))
	if err != nil {
		t.Fatal(err)
	}
	const header = "| provider | wire format | key variable | base URL variable | default base URL | reasoning sent back in |"
	_, rest, ok := strings.Cut(string(doc), header+"\n|---|---|---|---|---|---|\n")
	if !ok {
		t.Fatalf("docs/llm.md has no table headed %q", header)
	}
	var got []string
	for _, line := range strings.Split(rest, "\n") {
		if !strings.HasPrefix(line, "|") {
			break
		}
		got = append(got, line)
	}
	var want []string
	for _, p := range llm.Providers() {
		key := "`" + p.KeyEnv + "`"
		if p.KeyOptional {
			key += " (optional)"
		}
		wire := "`" + string(p.Wire) + "`"
		if p.ReasoningWire != "" {
			wire += ", `" + string(p.ReasoningWire) + "` for reasoning models"
		}
		back := "—"
		if p.ReasoningField != "" {
			back = "`" + p.ReasoningField + "`"
		}
		want = append(want, fmt.Sprintf("| `%s` | %s | %s | `%s` | `%s` | %s |", p.Name, wire, key, p.BaseURLEnv, p.DefaultBaseURL, back))
	}
	if !slices.Equal(got, want) {
		t.Errorf("docs/llm.md lists\n%s\nllm.Providers is\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestProviders_LookupAndNames: every row is found by its name, names are
// unique and sorted by ProviderNames, and each row names its variables.
func TestProviders_LookupAndNames(t *testing.T) {
	ps := llm.Providers()
	names := llm.ProviderNames()
	if len(names) != len(ps) || !slices.IsSorted(names) || len(slices.Compact(slices.Clone(names))) != len(names) {
		t.Fatalf("ProviderNames() = %v for %d providers", names, len(ps))
	}
	for _, p := range ps {
		got, ok := llm.LookupProvider(p.Name)
		if !ok || got.Name != p.Name || got.KeyEnv == "" || got.BaseURLEnv == "" || got.DefaultBaseURL == "" {
			t.Errorf("LookupProvider(%q) = %+v, %v", p.Name, got, ok)
		}
	}
	if _, ok := llm.LookupProvider("nosuch"); ok {
		t.Error("LookupProvider found an unknown provider")
	}
	for i := range ps {
		for k := range ps[i].Headers {
			ps[i].Headers[k] = "changed"
		}
		ps[i].Name = "changed"
	}
	if _, ok := llm.LookupProvider("changed"); ok || slices.ContainsFunc(llm.Providers(), func(p llm.ProviderInfo) bool {
		return slices.Contains(slices.Collect(maps.Values(p.Headers)), "changed")
	}) {
		t.Error("changing the returned table changed the next one")
	}
}
