package config

import (
	"encoding/json"
	"errors"
	"os"
	"strings"
)

// Without lets 'bonsai config set' repair the value that makes config.json
// invalid: when loadErr (Load's error for the file at path) is about key
// itself, it returns the file's configuration with that key left out, so
// that setting a valid value fixes the file. Any other load error is
// returned as it is.
func Without(path, key string, loadErr error) (Config, error) {
	hint := loadErr
	var fe *FileError
	if !errors.As(loadErr, &fe) || fe.Key != key {
		return Config{}, hint
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return Config{}, hint
	}
	var doc map[string]any
	if json.Unmarshal(b, &doc) != nil {
		return Config{}, hint
	}
	parts := strings.Split(key, ".")
	m := doc
	for _, p := range parts[:len(parts)-1] {
		if m, _ = m[p].(map[string]any); m == nil {
			return Config{}, hint
		}
	}
	delete(m, parts[len(parts)-1])
	b, err = json.Marshal(doc)
	if err != nil {
		return Config{}, hint
	}
	c, err := Parse(path, b)
	if err != nil {
		return Config{}, hint
	}
	return c, nil
}
