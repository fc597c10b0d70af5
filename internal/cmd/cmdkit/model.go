package cmdkit

import (
	"errors"
	"fmt"
	"io"

	"github.com/bonsai-run/bonsai/internal/config"
	"github.com/bonsai-run/bonsai/internal/llm"
	llmprovider "github.com/bonsai-run/bonsai/internal/llm/provider"
	"github.com/bonsai-run/bonsai/internal/view/text"
)

// CheckModelID refuses a model id whose provider Bonsai does not know
// ("antropic/…"), so that a typo fails when it is written rather than at
// the first beat. A missing key is not an error here: keys may be set later.
func CheckModelID(getenv func(string) string, flag, id string) error {
	if err := ModelProblem(getenv, id); err != nil {
		return Usagef("%s %s: %s", flag, id, err)
	}
	return nil
}

// ModelProblem says why agents could never use the model id (a malformed
// id, an unknown provider), without the provider prefix; nil when the id
// is empty or could be used once its key is set. The web UI shows it next
// to a project's model field.
func ModelProblem(getenv func(string) string, id string) error {
	if id == "" {
		return nil
	}
	if err := llmprovider.Check(id, getenv); err != nil && llm.KindOf(err) == llm.KindInvalidRequest {
		return errors.New(LLMMessage(err))
	}
	return nil
}

// LLMMessage is an llm error's own message, without the provider and kind
// prefix ("anthropic: auth: …") that repeats what the caller already says.
func LLMMessage(err error) string {
	var le *llm.Error
	if errors.As(err, &le) && le.Message != "" {
		return le.Message
	}
	return err.Error()
}

// WarnUnpriced warns on w when the catalog has no price for the model id
// just chosen (config set model, project add/edit --model).
func WarnUnpriced(w io.Writer, cfg config.Config, id string) {
	if cfg.Prices().Unpriced(id) {
		fmt.Fprintf(w, "bonsai: warning: the model catalog has no price for %s: %s\n", id, text.UnpricedHelp(id))
	}
}

// WarnUnpricedModel warns when the catalog, with config.json's models
// settings, has no price for a project's model id; "" (config.json's
// model) and an unreadable config.json are not warned about here.
func (a *App) WarnUnpricedModel(id string) {
	if id == "" {
		return
	}
	if cfg, err := a.Config(); err == nil {
		WarnUnpriced(a.Stderr, cfg, id)
	}
}
