package llm

import (
	"context"
	"encoding/json"
	"io"
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

// maxListBody bounds the size of a model list.
const maxListBody = 4 << 20

// FetchListing sends GET url with the header h through c and reads the
// {"data": [{"id": …}, …]} page both wire formats answer with. A status of
// 300 or more is given to status, which makes the provider's error of it;
// other failures are transport errors of provider. The caller redacts.
func FetchListing(ctx context.Context, c *http.Client, url string, h http.Header, provider string,
	status func(*http.Response) error) (Listing, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return Listing{}, &Error{Kind: KindInvalidRequest, Provider: provider, Message: err.Error(), Err: err}
	}
	req.Header = h
	resp, err := c.Do(req)
	if err != nil {
		return Listing{}, TransportError(ctx, provider, "model list", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode >= 300 {
		return Listing{}, status(resp)
	}
	var body struct {
		Data []struct {
			ID string `json:"id"`
		} `json:"data"`
	}
	if err := json.NewDecoder(io.LimitReader(resp.Body, maxListBody)).Decode(&body); err != nil {
		return Listing{}, TransportError(ctx, provider, "model list", err)
	}
	l := Listing{Date: ResponseDate(resp.Header), Models: make([]string, 0, len(body.Data))}
	for _, d := range body.Data {
		l.Models = append(l.Models, d.ID)
	}
	return l, nil
}
