//go:build !windows

package cli_test

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/charmbracelet/x/vt"
	"github.com/creack/pty"
)

// tuiScreen is the 80×24 screen of a terminal emulator that the program
// under test draws on; its replies to the program's queries go back on
// the pseudo-terminal, as a real terminal's do.
type tuiScreen struct {
	t   testing.TB
	tty *os.File
	mu  sync.Mutex
	em  *vt.Emulator
	raw bytes.Buffer // everything the program wrote
}

func (s *tuiScreen) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.raw.Write(p)
	return s.em.Write(p)
}

// text is the screen as text, one line per row, trailing spaces cut.
func (s *tuiScreen) text() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var b strings.Builder
	for y := 0; y < s.em.Height(); y++ {
		var line strings.Builder
		for x := 0; x < s.em.Width(); x++ {
			switch c := s.em.CellAt(x, y); {
			case c == nil:
				line.WriteString(" ")
			case c.Content == "":
				// the second column of a wide character
			default:
				line.WriteString(c.Content)
			}
		}
		b.WriteString(strings.TrimRight(line.String(), " ") + "\n")
	}
	return b.String()
}

// waitFor waits until the screen shows s and returns the screen.
func (s *tuiScreen) waitFor(want string) string {
	s.t.Helper()
	// A deadline for a failure, not a timing check.
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		if scr := s.text(); strings.Contains(scr, want) {
			return scr
		}
		time.Sleep(10 * time.Millisecond)
	}
	s.t.Fatalf("the screen never showed %q:\n%s", want, s.text())
	return ""
}

// waitIdle waits until the status line shows no turn working: the reply
// can be on the screen before its turn has ended, and a command that
// waits for the turn typed then is refused ("waits for the turn to end").
func (s *tuiScreen) waitIdle() {
	s.t.Helper()
	// A deadline for a failure, not a timing check.
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		if !strings.Contains(s.text(), " working · ") {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	s.t.Fatalf("the turn never ended:\n%s", s.text())
}

// waitForAfter waits until the screen shows want after the last place
// it shows anchor: a notice that an earlier line may already have put
// on the screen counts only once it follows the line it is about.
func (s *tuiScreen) waitForAfter(anchor, want string) string {
	s.t.Helper()
	// A deadline for a failure, not a timing check.
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		scr := s.text()
		if i := strings.LastIndex(scr, anchor); i >= 0 && strings.Contains(scr[i:], want) {
			return scr
		}
		time.Sleep(10 * time.Millisecond)
	}
	s.t.Fatalf("the screen never showed %q after %q:\n%s", want, anchor, s.text())
	return ""
}

// golden waits until the screen shows want, then until it matches
// testdata/tui/name.golden (with -update: writes the screen there).
func (s *tuiScreen) golden(name, want string) {
	s.t.Helper()
	path := filepath.Join("testdata", "tui", name+".golden")
	s.waitFor(want)
	if *update {
		time.Sleep(500 * time.Millisecond) // let the screen settle before recording it
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			s.t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(s.text()), 0o644); err != nil {
			s.t.Fatal(err)
		}
		return
	}
	gold, err := os.ReadFile(path)
	if err != nil {
		s.t.Fatalf("%v (run with -update to record it)", err)
	}
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		if s.text() == string(gold) {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	s.t.Fatalf("screen %s differs from its golden:\n--- got\n%s--- want\n%s", name, s.text(), gold)
}

// resize changes the terminal's size, as a person dragging the window.
func (s *tuiScreen) resize(cols, rows int) {
	s.t.Helper()
	s.mu.Lock()
	s.em.Resize(cols, rows)
	s.mu.Unlock()
	if err := pty.Setsize(s.tty, &pty.Winsize{Rows: uint16(rows), Cols: uint16(cols)}); err != nil {
		s.t.Fatal(err)
	}
}

// key types keys on the terminal.
func (s *tuiScreen) key(keys string) {
	s.t.Helper()
	if _, err := s.tty.WriteString(keys); err != nil {
		s.t.Fatal(err)
	}
}

// startTUI starts `bonsai run --cwd <work> args…` in an 80×24
// pseudo-terminal with TERM=xterm-256color against the fake model at
// url. It returns the work directory, the screen and a channel that
// delivers Wait's error once.
func startTUI(t testing.TB, url string, args ...string) (string, *tuiScreen, <-chan error) {
	t.Helper()
	dir := t.TempDir()
	work := filepath.Join(dir, "work")
	if err := os.MkdirAll(work, 0o755); err != nil {
		t.Fatal(err)
	}
	bin := "bonsai" // this test binary, as testscript.Main installs it
	if b := os.Getenv("BONSAI_BENCH_BIN"); b != "" {
		bin = b // a release build, for BenchmarkRunTUI_FirstPaint's figures
	}
	cmd := exec.Command(bin, append([]string{"run", "--cwd", work}, args...)...)
	cmd.Env = append(os.Environ(),
		"BONSAI_DATA_DIR="+filepath.Join(dir, "data"), "HOME="+dir,
		"ANTHROPIC_BASE_URL="+url, "ANTHROPIC_API_KEY=test-key", "TERM=xterm-256color", "COLORTERM=", "NO_COLOR=")
	tty, err := pty.StartWithSize(cmd, &pty.Winsize{Rows: 24, Cols: 80})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tty.Close() })
	s := &tuiScreen{t: t, tty: tty, em: vt.NewEmulator(80, 24)}
	go func() { _, _ = copyPTY(s, tty) }()
	go func() { _, _ = copyReplies(tty, s.em) }()
	exited := make(chan error, 1)
	waited := make(chan struct{})
	go func() { exited <- cmd.Wait(); close(waited) }()
	t.Cleanup(func() {
		select {
		case <-waited:
		default:
			cmd.Process.Kill()
			<-waited
		}
		// The emulator is not closed: Close races with the Read of
		// copyReplies, which stays blocked until the test process ends.
	})
	return work, s, exited
}

func copyPTY(dst *tuiScreen, src *os.File) (int64, error) {
	buf := make([]byte, 32<<10)
	var n int64
	for {
		k, err := src.Read(buf)
		if k > 0 {
			dst.Write(buf[:k])
			n += int64(k)
		}
		if err != nil {
			return n, err
		}
	}
}

// copyReplies sends the emulator's answers to queries back to the
// program.
func copyReplies(tty *os.File, em *vt.Emulator) (int64, error) {
	buf := make([]byte, 4096)
	var n int64
	for {
		k, err := em.Read(buf)
		if k > 0 {
			tty.Write(buf[:k])
			n += int64(k)
		}
		if err != nil {
			return n, err
		}
	}
}
