package cli

import (
	"github.com/bonsai-run/bonsai/internal/llm"
	llmprovider "github.com/bonsai-run/bonsai/internal/llm/provider"
)

// checkModelID refuses a model id whose provider Bonsai does not know
// ("antropic/…"), so that a typo fails when it is written rather than at
// the first beat. A missing key is not an error here: keys may be set later.
func checkModelID(getenv func(string) string, flag, id string) error {
	if id == "" {
		return nil
	}
	if err := llmprovider.Check(id, getenv); err != nil && llm.KindOf(err) == llm.KindInvalidRequest {
		return usagef("%s %s: %s", flag, id, llmMessage(err))
	}
	return nil
}
