package config

import (
	"fmt"
	"strings"
)

// Setting is one key and its current value, as `config list` prints it.
type Setting struct {
	Key   string `json:"key"`
	Value string `json:"value"`
	Help  string `json:"help"`
}

// List returns every key of c with its value, in schema order, then the
// model settings and the provider settings that are set.
func (c Config) List() []Setting {
	out := make([]Setting, len(keys))
	for i, k := range keys {
		out[i] = Setting{Key: k.name, Value: k.format(c), Help: k.help}
	}
	out = append(out, c.modelSettings()...)
	out = append(out, c.providerSettings()...)
	out = append(out, c.forgeSettings()...)
	return append(out, c.mcpSettings()...)
}

// Get returns the value of a dotted key; a model setting that is not set
// is "" (the catalog's value applies).
func (c Config) Get(name string) (string, error) {
	if strings.HasPrefix(name, modelsKey+".") {
		id, f, err := parseModelKey(name)
		if err != nil {
			return "", err
		}
		return f.format(c.Models[id]), nil
	}
	if strings.HasPrefix(name, forgeHostsKey+".") {
		return c.getForge(name)
	}
	if strings.HasPrefix(name, providersKey+".") {
		p, err := parseProviderKey(name)
		if err != nil {
			return "", err
		}
		return c.BaseURL(p), nil
	}
	if strings.HasPrefix(name, mcpKey+".") {
		return c.getMCP(name)
	}
	k, ok := lookup(name)
	if !ok {
		return "", unknownKey(name)
	}
	return k.format(c), nil
}

// unknownKey is the error for a key that is not in the schema.
func unknownKey(name string) error {
	return fmt.Errorf("unknown key %q%s; known keys are %s, %s, %s, %s, %s", name, didYouMean(name), knownKeys(), modelKeyHelp(), providerKeyHelp(), forgeKeyHelp(), mcpKeyHelp())
}

// Set returns c with the dotted key set from a command-line value, validated
// as if it had been read from the file. For a model setting, "" removes
// it, so that the catalog's value applies again.
func (c Config) Set(name, value string) (Config, error) {
	if strings.HasPrefix(name, modelsKey+".") {
		return c.setModel(name, value)
	}
	if strings.HasPrefix(name, providersKey+".") {
		return c.setProvider(name, value)
	}
	if strings.HasPrefix(name, mcpKey+".") {
		return c.setMCP(name, value)
	}
	if strings.HasPrefix(name, forgeHostsKey+".") {
		return c.setForge(name, value)
	}
	k, ok := lookup(name)
	if !ok {
		return c, unknownKey(name)
	}
	if err := k.setString(&c, value); err != nil {
		return c, fmt.Errorf("%s: %w", name, err)
	}
	return c, nil
}

// setModel is Set for a models.<id>.<field> key. c's Models map and the
// settings in it are copied first: c is a value, and the caller's must not
// change.
func (c Config) setModel(name, value string) (Config, error) {
	id, f, err := parseModelKey(name)
	if err != nil {
		return c, err
	}
	models := make(map[string]ModelSettings, len(c.Models)+1)
	for k, v := range c.Models {
		models[k] = v
	}
	m := models[id]
	if m.Price != nil {
		p := *m.Price
		m.Price = &p
	}
	if err := f.setString(&m, value); err != nil {
		return c, fmt.Errorf("%s: %w", name, err)
	}
	if m == (ModelSettings{}) {
		delete(models, id)
	} else {
		models[id] = m
	}
	if len(models) == 0 {
		models = nil
	}
	c.Models = models
	return c, nil
}
