package tui

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/bonsai-run/bonsai/internal/llm"
)

func TestModel_AtFileCompletion(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	root := h.m.opts.Root
	for _, f := range []string{"internal/tui/model.go", "internal/tui/view.go", "README.md", ".git/config"} {
		if err := os.MkdirAll(filepath.Join(root, filepath.Dir(f)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(root, f), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	outside := t.TempDir()
	os.WriteFile(filepath.Join(outside, "secret.txt"), nil, 0o644)
	if err := os.Symlink(outside, filepath.Join(root, "link")); err != nil {
		t.Fatal(err)
	}
	h.typeText("look at @int")
	h.press(tea.KeyTab, 0)
	if v := h.m.ed.ta.Value(); v != "look at @internal/tui/" {
		t.Fatalf("the common prefix: %q", v)
	}
	if !strings.Contains(h.screen(), "internal/tui/model.go  internal/tui/view.go") {
		t.Fatalf("no hint of the matches:\n%s", h.screen())
	}
	h.typeText("m")
	h.press(tea.KeyTab, 0)
	if v := h.m.ed.ta.Value(); v != "look at @internal/tui/model.go " {
		t.Fatalf("a single match: %q", v)
	}
	for _, f := range h.m.files {
		if strings.HasPrefix(f, ".git/") || strings.HasPrefix(f, "link/") {
			t.Errorf("listed %s", f)
		}
	}
}

func TestModel_PastedImagePathIsAttached(t *testing.T) {
	t.Parallel()
	h := newHarness(t, textTurn("a red dot"))
	img := filepath.Join(t.TempDir(), "shot one.png")
	if err := os.WriteFile(img, []byte("\x89PNG\r\n\x1a\nfake"), 0o644); err != nil {
		t.Fatal(err)
	}
	h.update(tea.PasteMsg{Content: "'" + img + "'"})
	if v := h.m.ed.ta.Value(); v != "[image #1: shot one.png]" {
		t.Fatalf("the editor shows %q", v)
	}
	h.typeText(" what is this?")
	h.press(tea.KeyEnter, 0)
	h.idle()
	msg := h.model.Requests()[0].Messages[0]
	if len(msg.Content) != 2 || msg.Content[1].Type != llm.PartImage || msg.Content[1].MimeType != "image/png" {
		t.Fatalf("the prompt sent: %+v", msg.Content)
	}
}
