package cli

import (
	"errors"
	"fmt"
	"io"

	"github.com/bonsai-run/bonsai/internal/config"
	"github.com/bonsai-run/bonsai/internal/llm"
	"github.com/bonsai-run/bonsai/internal/llm/catalog"
	llmprovider "github.com/bonsai-run/bonsai/internal/llm/provider"
	"github.com/bonsai-run/bonsai/internal/view/text"
)

// checkModelID refuses a model id whose provider Bonsai does not know
// ("antropic/…"), so that a typo fails when it is written rather than at
// the first beat. A missing key is not an error here: keys may be set later.
func checkModelID(getenv func(string) string, flag, id string) error {
	if err := modelProblem(getenv, id); err != nil {
		return usagef("%s %s: %s", flag, id, err)
	}
	return nil
}

// modelProblem says why agents could never use the model id (a malformed
// id, an unknown provider), without the provider prefix; nil when the id
// is empty or could be used once its key is set. The web UI shows it next
// to a project's model field.
func modelProblem(getenv func(string) string, id string) error {
	if id == "" {
		return nil
	}
	if err := llmprovider.Check(id, getenv); err != nil && llm.KindOf(err) == llm.KindInvalidRequest {
		return errors.New(llmMessage(err))
	}
	return nil
}

// priceCheck says which models the model catalog, with config.json's
// models settings, has no price for: budgets in USD never count their runs.
// It parses the catalog on first need, once.
type priceCheck struct {
	cfg    config.Config
	cat    *catalog.Catalog
	parsed bool
}

// unpriced reports whether the catalog has no price for the model id.
func (pc *priceCheck) unpriced(id string) bool {
	if id == "" {
		return false
	}
	if m, set := pc.cfg.Models[id]; id == config.DefaultModel && (!set || m.Price == nil) {
		// The catalog prices the default model (TestDefaultModelIsPriced):
		// status need not parse the catalog for a board that uses it.
		return false
	}
	if !pc.parsed {
		pc.parsed = true
		if len(pc.cfg.Models) == 0 {
			pc.cat = catalog.Default()
		} else if cat, err := modelCatalog(pc.cfg); err == nil {
			pc.cat = cat
		}
	}
	if pc.cat == nil {
		return false // config.json's own error is reported where it is loaded
	}
	info, _ := pc.cat.Lookup(id)
	return info.Price == (llm.Price{})
}

// unpriced reports whether the catalog, with cfg's models settings, has no
// price for the model id.
func unpriced(cfg config.Config, id string) bool {
	pc := priceCheck{cfg: cfg}
	return pc.unpriced(id)
}

// warnUnpriced warns on w when the catalog has no price for the model id
// just chosen (config set model, project add/edit --model).
func warnUnpriced(w io.Writer, cfg config.Config, id string) {
	if unpriced(cfg, id) {
		fmt.Fprintf(w, "bonsai: warning: the model catalog has no price for %s: %s\n", id, text.UnpricedHelp(id))
	}
}

// warnUnpricedModel warns when the catalog, with config.json's models
// settings, has no price for a project's model id; "" (config.json's
// model) and an unreadable config.json are not warned about here.
func (a *app) warnUnpricedModel(id string) {
	if id == "" {
		return
	}
	if cfg, err := a.config(); err == nil {
		warnUnpriced(a.stderr, cfg, id)
	}
}
