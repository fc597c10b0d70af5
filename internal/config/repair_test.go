package config

import (
	"os"
	"path/filepath"
	"testing"
)

// TestWithout_RepairsOnlyTheKeyAtFault: a file invalid because of one key
// loads without that key, so that 'config set' can fix it; an error about
// another key is returned as it is.
func TestWithout_RepairsOnlyTheKeyAtFault(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "config.json")
	if err := os.WriteFile(path, []byte(`{"model": "openai/gpt-5", "heartbeat": {"intervalSec": -5}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	_, loadErr := Load(path)
	if loadErr == nil {
		t.Fatal("the file loads")
	}
	c, err := Without(path, "heartbeat.intervalSec", loadErr)
	if err != nil || c.Model != "openai/gpt-5" || c.Heartbeat.IntervalSec != Default().Heartbeat.IntervalSec {
		t.Fatalf("Without(the key at fault) = %+v, %v", c, err)
	}
	if _, err := Without(path, "model", loadErr); err != loadErr {
		t.Errorf("Without(another key) = %v; want the load error", err)
	}
}
