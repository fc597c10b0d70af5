//go:build linux

package tools_test

import (
	"bytes"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bonsai-run/bonsai/internal/executor/sandbox"
	"github.com/bonsai-run/bonsai/internal/tool"
	"github.com/bonsai-run/bonsai/internal/tools"
)

// sandboxShot returns the screenshot tool working through a bubblewrap
// sandbox without network (a loopback of its own) on a new workspace
// under /var/tmp, outside the sandbox's private /tmp, with the real
// Chromium, or with fake, when not empty, as the body of a stand-in
// script beside the workspace; skipped where bwrap cannot run, except in
// CI.
func sandboxShot(t *testing.T, fake string, files map[string]string) (tool.Tool, string) {
	t.Helper()
	if err := sandbox.Available(); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("bwrap is required in CI: %v", err)
		}
		t.Skip(err)
	}
	dir, err := os.MkdirTemp("/var/tmp", "bonsai-screenshot-test-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	root, home := filepath.Join(dir, "ws"), filepath.Join(dir, "home")
	for _, d := range []string{root, home} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	writeTree(t, root, files)
	program := ""
	if fake != "" {
		program = filepath.Join(dir, "chromium")
		if err := os.WriteFile(program, []byte("#!/bin/sh\n"+fake+"\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	} else {
		program = chromium(t)
	}
	ex, err := sandbox.New(root, sandbox.Options{Network: sandbox.NetworkNone, Home: home})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ex.Close() })
	return tools.Lookup(tools.New(ex, tools.Options{Chromium: program}), "screenshot"), root
}

// TestScreenshot_InTheSandbox: Chromium runs in the sandbox (its own
// sandbox off, its profile in the command's /tmp, /dev/shm unused, the
// host's fonts read-only): a served page and a workspace file are
// pictured with their text drawn.
func TestScreenshot_InTheSandbox(t *testing.T) {
	t.Parallel()
	page := `<html><body style="margin:0;background:#fff"><p style="font:bold 120px sans-serif;color:#000;margin:0">HELLO</p></body></html>`
	st, root := sandboxShot(t, "", map[string]string{"site/index.html": page})
	port := freePort(t)
	for _, args := range []string{
		`{"file":"site/index.html","width":800,"height":300}`,
		`{"url":"http://localhost:` + port + `/","serve":"exec python3 -m http.server ` + port + ` --bind 127.0.0.1 --directory site","width":800,"height":300}`,
	} {
		r := call(t, st, args)
		data := shotPNG(t, r, 800, 300)
		t.Logf("%s: %d ms", args, r.Details.(tools.ScreenshotDetails).DurationMs)
		if n := darkPixels(t, data); n < 2000 {
			t.Errorf("%s: %d dark pixels, want the text drawn", args, n)
		}
	}
	if _, err := os.Stat(filepath.Join(root, ".bonsai-tmp", ".gitignore")); err != nil {
		t.Error(err)
	}
}

// TestScreenshot_HangingInTheSandbox: a Chromium that never ends is
// stopped at the call's bound in the sandbox too, and so is a serve
// command whose server never answers (Chromium stops loading at half
// the bound and the picture is taken).
func TestScreenshot_HangingInTheSandbox(t *testing.T) {
	t.Parallel()
	st, root := sandboxShot(t, "sleep 600", map[string]string{"p.html": "<p>x</p>"})
	r := call(t, st, `{"file":"p.html","timeout":2}`)
	if !r.IsError || !strings.Contains(r.Text(), "timed out after 2 s") {
		t.Fatalf("result = %q, want a time-out", r.Text())
	}
	noPicture(t, root)
}

// darkPixels counts the nearly black pixels of a PNG.
func darkPixels(t *testing.T, data []byte) int {
	t.Helper()
	img, err := png.Decode(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			if r, g, bl, _ := img.At(x, y).RGBA(); r < 0x3000 && g < 0x3000 && bl < 0x3000 {
				n++
			}
		}
	}
	return n
}
