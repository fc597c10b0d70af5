package config

import (
	"github.com/bonsai-run/bonsai/internal/llm"
	"github.com/bonsai-run/bonsai/internal/llm/catalog"
)

// Prices says which models the model catalog, with the configuration's
// models settings, has no price for: budgets in USD never count their
// runs. It parses the catalog on first need, once.
type Prices struct {
	cfg    Config
	cat    *catalog.Catalog
	parsed bool
}

// Prices returns the price check of c.
func (c Config) Prices() *Prices { return &Prices{cfg: c} }

// Unpriced reports whether the catalog has no price for the model id.
func (p *Prices) Unpriced(id string) bool {
	if id == "" {
		return false
	}
	if m, set := p.cfg.Models[id]; id == DefaultModel && (!set || m.Price == nil) {
		// The catalog prices the default model (TestDefaultModelIsPriced):
		// status need not parse the catalog for a board that uses it.
		return false
	}
	if !p.parsed {
		p.parsed = true
		if len(p.cfg.Models) == 0 {
			p.cat = catalog.Default()
		} else if cat, err := catalog.New(p.cfg.CatalogOverrides()); err == nil {
			p.cat = cat
		}
	}
	if p.cat == nil {
		return false // the configuration's own error is reported where it is loaded
	}
	info, _ := p.cat.Lookup(id)
	return info.Price == (llm.Price{})
}
