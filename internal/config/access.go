package config

import "fmt"

// Setting is one key and its current value, as `config list` prints it.
type Setting struct {
	Key   string `json:"key"`
	Value string `json:"value"`
	Help  string `json:"help"`
}

// List returns every key of c with its value, in schema order.
func (c Config) List() []Setting {
	out := make([]Setting, len(keys))
	for i, k := range keys {
		out[i] = Setting{Key: k.name, Value: k.format(c), Help: k.help}
	}
	return out
}

// Get returns the value of a dotted key.
func (c Config) Get(name string) (string, error) {
	k, ok := lookup(name)
	if !ok {
		return "", fmt.Errorf("unknown key %q; known keys are %s", name, knownKeys())
	}
	return k.format(c), nil
}

// Set returns c with the dotted key set from a command-line value, validated
// as if it had been read from the file.
func (c Config) Set(name, value string) (Config, error) {
	k, ok := lookup(name)
	if !ok {
		return c, fmt.Errorf("unknown key %q; known keys are %s", name, knownKeys())
	}
	if err := k.setString(&c, value); err != nil {
		return c, fmt.Errorf("%s: %w", name, err)
	}
	return c, nil
}
