package cli

import (
	"encoding/json"
	"errors"
	"os"
	"strings"

	"github.com/bonsai-run/bonsai/internal/config"
)

// configWithout lets 'bonsai config set' repair the value that makes
// config.json invalid: when loadErr is about key itself, it returns the file's
// configuration with that key left out, so that setting a valid value fixes
// the file. Any other load error is returned as it is.
func configWithout(path, key string, loadErr error) (config.Config, error) {
	hint := loadErr
	var fe *config.FileError
	if !errors.As(loadErr, &fe) || fe.Key != key {
		return config.Config{}, hint
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return config.Config{}, hint
	}
	var doc map[string]any
	if json.Unmarshal(b, &doc) != nil {
		return config.Config{}, hint
	}
	parts := strings.Split(key, ".")
	m := doc
	for _, p := range parts[:len(parts)-1] {
		if m, _ = m[p].(map[string]any); m == nil {
			return config.Config{}, hint
		}
	}
	delete(m, parts[len(parts)-1])
	b, err = json.Marshal(doc)
	if err != nil {
		return config.Config{}, hint
	}
	c, err := config.Parse(path, b)
	if err != nil {
		return config.Config{}, hint
	}
	return c, nil
}
