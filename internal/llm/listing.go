package llm

import (
	"context"
	"net/http"
	"time"
)

// Listing is a provider's answer to a request for its models: a request
// that costs no tokens, which tells whether the provider is reachable and
// accepts the key.
type Listing struct {
	// Models are the model names the provider lists ("claude-sonnet-4-5"),
	// in its order.
	Models []string
	// Date is the provider's clock (the response's Date header); zero when
	// the response had none.
	Date time.Time
}

// Has reports whether the listing names the model name, also as Gemini
// spells it ("models/gemini-2.5-flash").
func (l Listing) Has(name string) bool {
	for _, m := range l.Models {
		if m == name || m == "models/"+name {
			return true
		}
	}
	return false
}

// Lister is implemented by adapters that can list their provider's models.
type Lister interface {
	ListModels(ctx context.Context) (Listing, error)
}

// ResponseDate is the Date header of a response; zero when it has none
// or it does not parse.
func ResponseDate(h http.Header) time.Time {
	t, err := http.ParseTime(h.Get("Date"))
	if err != nil {
		return time.Time{}
	}
	return t
}
