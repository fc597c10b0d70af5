package heartbeat_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/bonsai-run/bonsai/internal/heartbeat"
)

// TestIdleStamp: the stamp changes with the version, the board's stamp
// and a file's size; a missing file or board stamp gives none.
func TestIdleStamp(t *testing.T) {
	t.Parallel()
	cfg := filepath.Join(t.TempDir(), "config.json")
	if err := os.WriteFile(cfg, []byte("{}"), 0o600); err != nil {
		t.Fatal(err)
	}
	s := heartbeat.IdleStamp("v1", "b1", cfg)
	if s == "" || s == heartbeat.IdleStamp("v2", "b1", cfg) || s == heartbeat.IdleStamp("v1", "b2", cfg) {
		t.Errorf("stamp %q does not follow the version and the board", s)
	}
	if err := os.WriteFile(cfg, []byte(`{"model":"x"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	if heartbeat.IdleStamp("v1", "b1", cfg) == s {
		t.Error("stamp unchanged after config.json changed")
	}
	if heartbeat.IdleStamp("v1", "b1", cfg, filepath.Join(t.TempDir(), "gone")) != "" || heartbeat.IdleStamp("v1", "", cfg) != "" {
		t.Error("a stamp without a file or a board stamp")
	}
}
