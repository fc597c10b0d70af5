package session_test

import (
	"path/filepath"
	"testing"

	"github.com/bonsai-run/bonsai/internal/session"
)

func TestLayout_TicketFiles(t *testing.T) {
	root := filepath.Join("data", "sessions")
	l := session.Layout{Root: root}
	tr := must(l.Transcript("p1", "t1"))
	if want := filepath.Join(root, "p1", "t1", "transcript.jsonl"); tr != want {
		t.Errorf("transcript %q, want %q", tr, want)
	}
	live := must(l.Live("p1", "t1"))
	if want := filepath.Join(root, "p1", "t1", "live.jsonl"); live != want {
		t.Errorf("live file %q, want %q", live, want)
	}
	if got := session.LivePath(tr); got != live {
		t.Errorf("the live file beside the transcript is %q, not %q", got, live)
	}
	if got := session.LivePath(""); got != "" {
		t.Errorf("the live file of no transcript is %q", got)
	}
}

func TestLayout_RefusesIDsThatEscape(t *testing.T) {
	l := session.Layout{Root: t.TempDir()}
	for _, ids := range [][2]string{
		{"..", "x"}, {"x", ".."}, {".", "x"}, {"a/b", "x"}, {"p", "../x"}, {"p", `..\x`}, {`a\b`, "x"},
		{"", "x"}, {"p", ""}, {".hidden", "x"}, {"/abs", "x"},
	} {
		if p, err := l.Transcript(ids[0], ids[1]); err == nil || p != "" {
			t.Errorf("Transcript(%q, %q) = %q, %v", ids[0], ids[1], p, err)
		}
		if p, err := l.Live(ids[0], ids[1]); err == nil || p != "" {
			t.Errorf("Live(%q, %q) = %q, %v", ids[0], ids[1], p, err)
		}
	}
	// IDs as the store makes them pass.
	if _, err := l.TicketDir("0192f0c4-6c1e-7d3a-9b2f-1a2b3c4d5e6f", "a1b2.c3"); err != nil {
		t.Errorf("a plain id is refused: %v", err)
	}
}

func TestLayout_RunDir(t *testing.T) {
	root := filepath.Join("data", "sessions")
	l := session.Layout{Root: root}
	for cwd, name := range map[string]string{
		"/home/me/project": "--home-me-project--",
		`C:\Users\me\proj`: "--C--Users-me-proj--",
		"/":                "----",
		"/srv/a-b/c":       "--srv-a-b-c--",
	} {
		if got, want := l.RunDir(cwd), filepath.Join(root, "cli", name); got != want {
			t.Errorf("RunDir(%q) = %q, want %q", cwd, got, want)
		}
	}
}
