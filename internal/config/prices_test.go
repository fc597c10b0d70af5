package config

import (
	"testing"

	"github.com/bonsai-run/bonsai/internal/llm/catalog"
)

// TestDefaultModelIsPriced checks what Prices' shortcut assumes: the
// catalog prices the default model, so a board using it needs no parse.
func TestDefaultModelIsPriced(t *testing.T) {
	t.Parallel()
	info, warn := catalog.Default().Lookup(DefaultModel)
	if warn != "" || info.Price.Input == 0 || info.Price.Output == 0 {
		t.Fatalf("catalog entry for %s: %+v %q; want input and output prices", DefaultModel, info.Price, warn)
	}
}

// TestPrices checks which models count as unpriced: unknown ones, and
// known ones whose price json sets to zero; not once priced.
func TestPrices(t *testing.T) {
	t.Parallel()
	cfg := Default()
	for _, tt := range []struct {
		id   string
		want bool
	}{{DefaultModel, false}, {"openai/gpt-5", false}, {"openai/unknown-xyz", true}, {"", false}} {
		if got := cfg.Prices().Unpriced(tt.id); got != tt.want {
			t.Errorf("Unpriced(%q) = %v, want %v", tt.id, got, tt.want)
		}
	}
	c, err := cfg.Set("models.openai/unknown-xyz.price.input", "2")
	if err != nil {
		t.Fatal(err)
	}
	if c.Prices().Unpriced("openai/unknown-xyz") {
		t.Error("unpriced after setting its price")
	}
	for _, k := range []string{"input", "output", "cacheRead", "cacheWrite"} {
		if c, err = c.Set("models."+DefaultModel+".price."+k, "0"); err != nil {
			t.Fatal(err)
		}
	}
	if !c.Prices().Unpriced(DefaultModel) {
		t.Error("the default model priced at zero by json is not reported unpriced")
	}
}
