package catalog

import (
	"cmp"
	_ "embed"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/bonsai-run/bonsai/internal/llm"
)

//go:embed models.json
var embedded []byte

// Conservative limits for models the catalog does not know: small enough
// for most local servers, so compaction starts before the server refuses.
const (
	DefaultContextWindow   = 32768
	DefaultMaxOutputTokens = 8192
)

// Catalog maps "provider/model" ids to model information.
type Catalog struct {
	models map[string]llm.Info
}

// New returns the embedded catalog with overrides applied. Each override
// is a JSON object with any of Info's fields (contextWindow,
// maxOutputTokens, images, thinking, price.{input,output,cacheRead,
// cacheWrite}); fields it leaves out keep the embedded value, or the
// defaults for a model the catalog does not know.
func New(overrides map[string]json.RawMessage) (*Catalog, error) {
	c := &Catalog{models: map[string]llm.Info{}}
	var base map[string]llm.Info
	if err := json.Unmarshal(embedded, &base); err != nil {
		return nil, fmt.Errorf("embedded model catalog: %w", err)
	}
	for id, info := range base {
		info.ID = id
		c.models[id] = info
	}
	for id, raw := range overrides {
		mid, err := llm.ParseModelID(id)
		if err != nil {
			return nil, fmt.Errorf("models: %w", err)
		}
		key := mid.String()
		info, ok := c.models[key]
		if !ok {
			info = defaults(key)
		}
		if err := json.Unmarshal(raw, &info); err != nil {
			return nil, fmt.Errorf("models.%s: %w", id, err)
		}
		info.ID = key
		c.models[key] = info
	}
	return c, nil
}

// Default returns the embedded catalog without overrides. It is parsed on
// first use and shared: a Catalog is read-only.
func Default() *Catalog { return defaultCatalog() }

var defaultCatalog = sync.OnceValue(func() *Catalog {
	c, err := New(nil)
	if err != nil {
		panic(err) // the embedded file is checked by tests
	}
	return c
})

var dateSuffix = regexp.MustCompile(`-(\d{8}|\d{4}-\d{2}-\d{2}|latest)$`)

// Lookup returns the information for id. For a model it does not know it
// returns defaults and a one-line warning; the warning is empty otherwise.
func (c *Catalog) Lookup(id string) (llm.Info, string) {
	mid, err := llm.ParseModelID(id)
	if err != nil {
		return defaults(id), err.Error()
	}
	key := mid.String()
	if info, ok := c.find(key); ok {
		info.ID = key
		return info, ""
	}
	// Routers name models by their maker's id: openrouter/openai/gpt-5.
	if inner, err := llm.ParseModelID(mid.Model); err == nil {
		if info, ok := c.find(inner.String()); ok {
			info.ID = key
			return info, ""
		}
	}
	return defaults(key), fmt.Sprintf("model %s is not in the catalog: assuming a %d-token context window, %d output tokens, no images, no thinking and no cost tracking (describe it under \"models\" in config.json)",
		key, DefaultContextWindow, DefaultMaxOutputTokens)
}

// find tries the id as given, without a snapshot date, and with dots as
// dashes (Anthropic's "claude-sonnet-4-5" is also written "claude-sonnet-4.5").
func (c *Catalog) find(key string) (llm.Info, bool) {
	trimmed := dateSuffix.ReplaceAllString(key, "")
	for _, k := range []string{key, trimmed, strings.ReplaceAll(trimmed, ".", "-")} {
		if info, ok := c.models[k]; ok {
			return info, true
		}
	}
	return llm.Info{}, false
}

// Models returns every known model, sorted by id.
func (c *Catalog) Models() []llm.Info {
	out := make([]llm.Info, 0, len(c.models))
	for _, info := range c.models {
		out = append(out, info)
	}
	slices.SortFunc(out, func(a, b llm.Info) int { return cmp.Compare(a.ID, b.ID) })
	return out
}

func defaults(id string) llm.Info {
	return llm.Info{ID: id, ContextWindow: DefaultContextWindow, MaxOutputTokens: DefaultMaxOutputTokens}
}
