//go:build !windows

package cli_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bonsai-run/bonsai/internal/llm/llmtest"
)

// TestRunTUI_CommandScreens drives the slash commands on the real
// binary's 80×24 screen, each checked against its golden: /thinking,
// /model, /tree, /mode, /compact, /resume, /skill, /fork and /clear;
// /export writes its file.
func TestRunTUI_CommandScreens(t *testing.T) {
	t.Parallel()
	srv := llmtest.NewServer(t, textServerTurn("Hi."), textServerTurn("Again."))
	work, s, _ := startTUI(t, srv.URL, "--no-session")
	s.waitFor("Ask anything")
	s.key("hello\r")
	s.waitFor("Hi.")
	s.waitIdle()
	for _, c := range []struct{ line, golden, want string }{
		{"/thinking high", "cmd-thinking", "thinking high"},
		{"/model", "cmd-model", "(/model provider/model switches)"},
		{"/tree", "cmd-tree", "assistant: Hi."},
		{"/mode ask", "cmd-mode", "permission mode: ask, from"},
		{"/compact", "cmd-compact", "nothing to compact"},
		{"/resume", "cmd-resume", "keeps its session in memory"},
		{"/skill:review", "cmd-skill", `no skill "review"`},
		{"/fork", "cmd-fork", "forked"},
		{"/clear", "cmd-clear", "Ask anything"},
	} {
		s.key(c.line + "\r")
		s.golden(c.golden, c.want)
	}
	s.key("again\r")
	s.waitFor("Again.")
	s.waitIdle()
	s.key("/export\r")
	s.waitFor("exported to")
	matches, _ := filepath.Glob(filepath.Join(work, "bonsai-*.md"))
	if len(matches) != 1 {
		t.Fatalf("/export wrote %v", matches)
	}
	if b, _ := os.ReadFile(matches[0]); !strings.Contains(string(b), "again") || strings.Contains(string(b), "hello") {
		t.Errorf("the export after /clear:\n%s", b)
	}
}
