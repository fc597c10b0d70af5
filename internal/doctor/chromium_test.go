package doctor_test

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/bonsai-run/bonsai/internal/doctor"
	"github.com/bonsai-run/bonsai/internal/tools"
)

// TestChromium: doctor says whether the screenshot tool's Chromium is
// there (the real one when installed), skips without one, and fails for
// one that does not run.
func TestChromium(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	if p := tools.FindChromium(nil); p != "" {
		c := doctor.Chromium(ctx, p)
		if c.Status != doctor.OK || !strings.Contains(c.Detail, "Chromium ") || !strings.Contains(c.Detail, "agents get the screenshot tool") {
			t.Errorf("installed: %+v", c)
		}
	} else if os.Getenv("CI") != "" && runtime.GOOS == "linux" {
		t.Fatal("CI installs Chromium; FindChromium found none")
	}
	if c := doctor.Chromium(ctx, ""); c.Status != doctor.Skip || !strings.Contains(c.Detail, "no screenshot tool") && runtime.GOOS == "linux" {
		t.Errorf("missing: %+v", c)
	}
	broken := filepath.Join(t.TempDir(), "chromium")
	if err := os.WriteFile(broken, []byte("#!/bin/sh\nexit 3\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if c := doctor.Chromium(ctx, broken); c.Status != doctor.Fail || !strings.Contains(c.Detail, "--version failed") || c.Fix == "" {
		t.Errorf("broken: %+v", c)
	}
}
