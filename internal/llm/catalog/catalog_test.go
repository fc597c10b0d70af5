package catalog

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/bonsai-run/bonsai/internal/llm"
)

func TestCatalog_Embedded(t *testing.T) {
	c := Default()
	want := []string{"anthropic/claude-opus-4-5", "anthropic/claude-sonnet-4-5", "anthropic/claude-haiku-4-5",
		"openai/gpt-5", "openai/gpt-5-mini", "openai/gpt-5-nano", "openai/gpt-4.1", "openai/gpt-4.1-mini",
		"openai/gpt-4o", "openai/gpt-4o-mini", "openai/o3", "openai/o4-mini"}
	for _, id := range want {
		info, warn := c.Lookup(id)
		if warn != "" || info.ID != id {
			t.Errorf("%s: %+v %q", id, info, warn)
		}
	}
	for _, info := range c.Models() {
		if info.ContextWindow <= 0 || info.MaxOutputTokens <= 0 || info.MaxOutputTokens > info.ContextWindow ||
			info.Price.Input <= 0 || info.Price.Output < info.Price.Input || info.Price.CacheRead >= info.Price.Input {
			t.Errorf("implausible entry %+v", info)
		}
		if strings.HasPrefix(info.ID, "anthropic/") && info.Price.CacheWrite <= info.Price.Input {
			t.Errorf("anthropic cache writes cost more than input: %+v", info)
		}
		// OpenAI's reasoning models always reason: thinking off sends the
		// lowest effort each accepts (gpt-5: minimal; o-series: low).
		want := map[bool]string{true: "minimal", false: "low"}[strings.HasPrefix(info.ID, "openai/gpt-5")]
		if strings.HasPrefix(info.ID, "openai/") && info.Thinking != (info.MinEffort == want) {
			t.Errorf("%s: minEffort %q, want %q for a reasoning model and none otherwise", info.ID, info.MinEffort, want)
		}
	}
}

func TestCatalog_LookupAliases(t *testing.T) {
	c := Default()
	tests := map[string]string{
		"anthropic/claude-sonnet-4-5-20250929":   "anthropic/claude-sonnet-4-5",
		"anthropic/claude-sonnet-4.5":            "anthropic/claude-sonnet-4-5",
		"anthropic/claude-3-5-haiku-latest":      "anthropic/claude-3-5-haiku",
		"openai/gpt-4o-2024-08-06":               "openai/gpt-4o",
		"openrouter/openai/gpt-5":                "openai/gpt-5",
		"openrouter/anthropic/claude-sonnet-4.5": "anthropic/claude-sonnet-4-5",
	}
	for id, base := range tests {
		got, warn := c.Lookup(id)
		want, _ := c.Lookup(base)
		if warn != "" || got.ID != strings.ToLower(id[:strings.Index(id, "/")])+id[strings.Index(id, "/"):] || got.Price != want.Price || got.ContextWindow != want.ContextWindow {
			t.Errorf("Lookup(%q) = %+v, %q; want the entry of %s", id, got, warn, base)
		}
	}
}

func TestCatalog_UnknownModel(t *testing.T) {
	info, warn := Default().Lookup("ollama/qwen3:8b")
	if info.ID != "ollama/qwen3:8b" || info.ContextWindow != DefaultContextWindow || info.MaxOutputTokens != DefaultMaxOutputTokens ||
		info.Images || info.Thinking || info.Price != (llm.Price{}) {
		t.Errorf("info = %+v", info)
	}
	if warn == "" || strings.Contains(warn, "\n") || !strings.Contains(warn, "ollama/qwen3:8b") {
		t.Errorf("warning = %q", warn)
	}
	if cost := info.Price.Cost(llm.Usage{Input: 1000, Output: 1000}); cost != 0 {
		t.Errorf("cost = %v", cost)
	}
}

func TestCatalog_Overrides(t *testing.T) {
	c, err := New(map[string]json.RawMessage{
		// A partial override keeps the embedded fields it does not name.
		"anthropic/claude-sonnet-4-5": json.RawMessage(`{"contextWindow": 1000000, "price": {"input": 6}}`),
		// A new local model starts from the defaults.
		"ollama/qwen3:8b": json.RawMessage(`{"contextWindow": 40960, "thinking": true}`),
	})
	if err != nil {
		t.Fatal(err)
	}
	s, warn := c.Lookup("anthropic/claude-sonnet-4-5")
	if warn != "" || s.ContextWindow != 1000000 || s.MaxOutputTokens != 64000 || s.Price != (llm.Price{Input: 6, Output: 15, CacheRead: 0.3, CacheWrite: 3.75}) || !s.Images {
		t.Errorf("sonnet = %+v", s)
	}
	q, warn := c.Lookup("ollama/qwen3:8b")
	if warn != "" || q.ContextWindow != 40960 || q.MaxOutputTokens != DefaultMaxOutputTokens || !q.Thinking {
		t.Errorf("qwen = %+v %q", q, warn)
	}
	if _, err := New(map[string]json.RawMessage{"nope": json.RawMessage(`{}`)}); err == nil {
		t.Error("an id without provider must be refused")
	}
	if _, err := New(map[string]json.RawMessage{"x/y": json.RawMessage(`{"contextWindow": "big"}`)}); err == nil || !strings.Contains(err.Error(), "models.x/y") {
		t.Errorf("bad override error = %v", err)
	}
}

func TestPrice_Cost(t *testing.T) {
	info, _ := Default().Lookup("anthropic/claude-opus-4-5")
	// 10k uncached input, 2k output, 50k cache read, 5k cache write.
	got := info.Price.Cost(llm.Usage{Input: 10000, Output: 2000, CacheRead: 50000, CacheWrite: 5000})
	want := (10000*5 + 2000*25 + 50000*0.5 + 5000*6.25) / 1e6
	if got != want {
		t.Errorf("cost = %v, want %v", got, want)
	}
}
