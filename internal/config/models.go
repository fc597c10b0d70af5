package config

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// ModelSettings overrides what the embedded model catalog says of one
// model: its limits, what it accepts, and its prices. A nil field keeps
// the catalog's value (or, for a model the catalog does not know, the
// conservative defaults). Prices are what budgets in USD are counted in,
// so a model the catalog does not price needs them for those caps to work.
type ModelSettings struct {
	ContextWindow   *int        `json:"contextWindow,omitempty"`
	MaxOutputTokens *int        `json:"maxOutputTokens,omitempty"`
	Images          *bool       `json:"images,omitempty"`
	Thinking        *bool       `json:"thinking,omitempty"`
	Documents       *bool       `json:"documents,omitempty"`
	Price           *ModelPrice `json:"price,omitempty"`
}

// ModelPrice is a model's price in USD per million tokens.
type ModelPrice struct {
	Input      *float64 `json:"input,omitempty"`
	Output     *float64 `json:"output,omitempty"`
	CacheRead  *float64 `json:"cacheRead,omitempty"`
	CacheWrite *float64 `json:"cacheWrite,omitempty"`
}

// modelField is one setting of a model, written models.<id>.<name>.
type modelField struct {
	name string
	help string
	num  func(*ModelSettings) **int
	flag func(*ModelSettings) **bool
	usd  func(*ModelSettings) **float64
	min  int
	max  int
}

// modelFields are the settings of a model, in the order `config list`
// prints them.
var modelFields = []modelField{
	{name: "contextWindow", help: "tokens the model reads at most", num: func(m *ModelSettings) **int { return &m.ContextWindow }, min: 1024, max: 100_000_000},
	{name: "maxOutputTokens", help: "tokens the model writes at most per response", num: func(m *ModelSettings) **int { return &m.MaxOutputTokens }, min: 1, max: 10_000_000},
	{name: "images", help: "whether the model reads images", flag: func(m *ModelSettings) **bool { return &m.Images }},
	{name: "thinking", help: "whether the model can think before it answers", flag: func(m *ModelSettings) **bool { return &m.Thinking }},
	{name: "documents", help: "whether the model reads PDF documents", flag: func(m *ModelSettings) **bool { return &m.Documents }},
	{name: "price.input", help: "USD per million input tokens", usd: func(m *ModelSettings) **float64 { return &price(m).Input }, max: maxModelPrice},
	{name: "price.output", help: "USD per million output tokens", usd: func(m *ModelSettings) **float64 { return &price(m).Output }, max: maxModelPrice},
	{name: "price.cacheRead", help: "USD per million tokens read from the prompt cache", usd: func(m *ModelSettings) **float64 { return &price(m).CacheRead }, max: maxModelPrice},
	{name: "price.cacheWrite", help: "USD per million tokens written to the prompt cache", usd: func(m *ModelSettings) **float64 { return &price(m).CacheWrite }, max: maxModelPrice},
}

// maxModelPrice bounds a price per million tokens: far above any model's,
// low enough to catch a typo.
const maxModelPrice = 10_000

// price returns m's prices, creating them when m has none.
func price(m *ModelSettings) *ModelPrice {
	if m.Price == nil {
		m.Price = &ModelPrice{}
	}
	return m.Price
}

// modelsKey is the section of config.json holding the model settings.
const modelsKey = "models"

// modelKeyHelp is what an error about a model key says the keys are.
func modelKeyHelp() string {
	names := make([]string, len(modelFields))
	for i, f := range modelFields {
		names[i] = f.name
	}
	return "models.<provider/model>." + "{" + strings.Join(names, ",") + "}"
}

// parseModelKey splits "models.<id>.<field>" into the model id and field.
// The id may hold dots ("openai/gpt-4.1"); field names end the key.
func parseModelKey(name string) (string, modelField, error) {
	rest, ok := strings.CutPrefix(name, modelsKey+".")
	if !ok {
		return "", modelField{}, fmt.Errorf("unknown key %q", name)
	}
	for _, f := range modelFields {
		if id, ok := strings.CutSuffix(rest, "."+f.name); ok {
			if err := checkModel(id); err != nil {
				return "", modelField{}, fmt.Errorf("%s: model %w", name, err)
			}
			return id, f, nil
		}
	}
	return "", modelField{}, fmt.Errorf("unknown key %q; model keys are %s", name, modelKeyHelp())
}

// allowed describes the values f accepts.
func (f modelField) allowed() string {
	switch {
	case f.num != nil:
		return fmt.Sprintf("a whole number from %d to %d", f.min, f.max)
	case f.flag != nil:
		return "true or false"
	}
	return fmt.Sprintf("a price in USD per million tokens from 0 to %d", f.max)
}

// setJSON sets f of m from a value decoded with json.Decoder.UseNumber.
func (f modelField) setJSON(m *ModelSettings, v any) error {
	bad := fmt.Errorf("must be %s, got %s", f.allowed(), describe(v))
	switch {
	case f.num != nil:
		n, ok := wholeNumber(v)
		if !ok || n < f.min || n > f.max {
			return bad
		}
		*f.num(m) = &n
	case f.flag != nil:
		b, ok := v.(bool)
		if !ok {
			return bad
		}
		*f.flag(m) = &b
	default:
		num, ok := v.(json.Number)
		if !ok {
			return bad
		}
		x, err := num.Float64()
		if err != nil || !(x >= 0 && x <= float64(f.max)) {
			return bad
		}
		*f.usd(m) = &x
	}
	return nil
}

// setString sets f of m from a command-line value; "" removes it.
func (f modelField) setString(m *ModelSettings, s string) error {
	s = strings.TrimSpace(s)
	if s == "" {
		f.clear(m)
		return nil
	}
	switch {
	case f.flag != nil:
		b, err := strconv.ParseBool(s)
		if err != nil {
			return fmt.Errorf("must be %s, got %q", f.allowed(), s)
		}
		return f.setJSON(m, b)
	case f.usd != nil:
		s = strings.TrimPrefix(s, "$")
	}
	if _, err := strconv.ParseFloat(s, 64); err != nil || strings.ContainsAny(s, "xXpPnNiI_") {
		return fmt.Errorf("must be %s, got %q", f.allowed(), s)
	}
	return f.setJSON(m, json.Number(s))
}

// clear removes f from m, and m's prices when none is left.
func (f modelField) clear(m *ModelSettings) {
	switch {
	case f.num != nil:
		*f.num(m) = nil
	case f.flag != nil:
		*f.flag(m) = nil
	default:
		*f.usd(m) = nil
		if *m.Price == (ModelPrice{}) {
			m.Price = nil
		}
	}
}

// format returns f's value in m as `config get` prints it; "" when unset.
func (f modelField) format(m ModelSettings) string {
	switch {
	case f.num != nil:
		if p := *f.num(&m); p != nil {
			return strconv.Itoa(*p)
		}
	case f.flag != nil:
		if p := *f.flag(&m); p != nil {
			return strconv.FormatBool(*p)
		}
	default:
		if m.Price == nil {
			return ""
		}
		if p := *f.usd(&m); p != nil {
			return strconv.FormatFloat(*p, 'f', -1, 64)
		}
	}
	return ""
}

// applyModels reads the models section of config.json into c.
func applyModels(c *Config, v any) error {
	obj, ok := v.(map[string]any)
	if !ok {
		return &FileError{Key: modelsKey, Err: fmt.Errorf(`must be an object: {"provider/model": {"contextWindow": …}}`)}
	}
	for id, settings := range obj {
		at := modelsKey + "." + id
		if err := checkModel(id); err != nil {
			return &FileError{Key: at, Err: fmt.Errorf("model %w", err)}
		}
		var m ModelSettings
		if err := applyModel(&m, at, "", settings); err != nil {
			return err
		}
		if c.Models == nil {
			c.Models = map[string]ModelSettings{}
		}
		c.Models[id] = m
	}
	return nil
}

// applyModel reads one model's settings (or, with prefix "price", its
// prices) into m.
func applyModel(m *ModelSettings, at, prefix string, v any) error {
	obj, ok := v.(map[string]any)
	if !ok {
		return &FileError{Key: at, Err: fmt.Errorf("must be an object")}
	}
	for name, val := range obj {
		full := name
		if prefix != "" {
			full = prefix + "." + name
		}
		if full == "price" {
			if err := applyModel(m, at+".price", "price", val); err != nil {
				return err
			}
			continue
		}
		i := slices.IndexFunc(modelFields, func(f modelField) bool { return f.name == full })
		if i < 0 {
			return &FileError{Key: at + "." + name, Err: fmt.Errorf("unknown key; model keys are %s", modelKeyHelp())}
		}
		if err := modelFields[i].setJSON(m, val); err != nil {
			return &FileError{Key: at + "." + name, Err: err}
		}
	}
	return nil
}

// modelSettings lists the model settings of c in `config list` order: by
// model id, then field.
func (c Config) modelSettings() []Setting {
	ids := make([]string, 0, len(c.Models))
	for id := range c.Models {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	var out []Setting
	for _, id := range ids {
		for _, f := range modelFields {
			if v := f.format(c.Models[id]); v != "" {
				out = append(out, Setting{Key: modelsKey + "." + id + "." + f.name, Value: v, Help: f.help})
			}
		}
	}
	return out
}

// CatalogOverrides returns the model settings in the form the model
// catalog takes (llm/catalog.New): per model id, a JSON object with the
// fields that are set.
func (c Config) CatalogOverrides() map[string]json.RawMessage {
	if len(c.Models) == 0 {
		return nil
	}
	out := make(map[string]json.RawMessage, len(c.Models))
	for id, m := range c.Models {
		b, err := json.Marshal(m)
		if err != nil {
			panic(err) // plain numbers and booleans always marshal
		}
		out[id] = b
	}
	return out
}
