//go:build !windows

package cli

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/bonsai-run/bonsai/internal/gittest"
	"github.com/bonsai-run/bonsai/internal/heartbeat"
	"github.com/bonsai-run/bonsai/internal/llm"
	"github.com/bonsai-run/bonsai/internal/llm/llmtest"
)

// TestServe_BrowserStopAndRunNow drives the ticket page's run controls
// against the real processes: Run now starts a beat (a child process of
// `bonsai serve`, the bonsai binary testscript puts on PATH) whose agent
// runs a long command; Stop ends the run as stopped and kills the
// command; Run now again starts a run that completes.
func TestServe_BrowserStopAndRunNow(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("browser test")
	}
	browser := startChromium(t)
	bonsai, err := exec.LookPath("bonsai") // TestMain's copy of this binary
	if err != nil {
		t.Fatalf("no bonsai on PATH (TestMain puts it there): %v", err)
	}
	ta := newTestApp(t)
	repo := gittest.Repo(t, t.TempDir(), map[string]string{"README.md": "# demo\n"})
	ta.run("project", "add", "demo", "--repo", repo)
	ta.run("ticket", "add", "demo", "Long work", "--state", "IN_PROGRESS")
	turn := func(parts ...llm.Part) llmtest.ServerTurn {
		return llmtest.ServerTurn{Message: llm.Message{Role: llm.RoleAssistant, Content: parts, Usage: &llm.Usage{Input: 100, Output: 20}}}
	}
	model := llmtest.NewServer(t,
		turn(llm.Text("Starting the long job."), llm.ToolCall("toolu_1", "bash", []byte(`{"command":"touch started && exec sleep 302"}`))),
		turn(llm.Text("All done.")),
	)
	ta.env["ANTHROPIC_BASE_URL"], ta.env["ANTHROPIC_API_KEY"] = model.URL, "test-key"
	beatEnv := os.Environ()
	for k, v := range ta.env {
		beatEnv = append(beatEnv, k+"="+v)
	}

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var out syncBuffer
	url, done := ta.serveWith(ctx, &out, func(a *app) {
		a.beatCommand = func() (string, []string, error) { return bonsai, beatEnv, nil }
	})
	base, _, _ := strings.Cut(url, "/?token=")
	c, stop := context.WithTimeout(browser, 20*time.Second)
	defer stop()
	if err := chromedp.Do(c, chromedp.Navigate(url), chromedp.Navigate(base+"/p/demo/1"),
		chromedp.WaitVisible(chromedp.CSS("#run-now"))); err != nil {
		t.Fatalf("open the ticket page: %v", err)
	}

	// Run now: the beat starts at once and the page shows the agent running.
	clickByID(t, browser, "run-now", 10*time.Second)
	pollJS(t, browser, "the page shows the agent running with a Stop button",
		`!!document.querySelector(".badge.running") && !!document.getElementById("stop-run")`, time.Minute)
	started := filepath.Join(ta.env["BONSAI_DATA_DIR"], "worktrees", "demo", "1", "started")
	if !fileAppears(started, time.Minute) {
		beatOut, _ := os.ReadFile(filepath.Join(ta.env["BONSAI_DATA_DIR"], "logs", "run-now-demo-1.out"))
		t.Fatalf("the agent's command never ran (%s never appeared)\nthe beat printed:\n%s\nserve printed:\n%s\nthe ticket:\n%s",
			started, beatOut, out.String(), ta.run("ticket", "show", "demo#1"))
	}

	// Stop: the run ends as stopped and the command is killed.
	clicked := time.Now()
	clickByID(t, browser, "stop-run", 10*time.Second)
	pollJS(t, browser, "the run shows as stopped",
		`!document.getElementById("activity") && document.querySelector(".runs .run-status").textContent === "stopped"`, time.Minute)
	t.Logf("Stop: %s from the click to the page showing the run stopped", time.Since(clicked).Round(time.Millisecond))
	waitUnlocked(t, filepath.Join(ta.env["BONSAI_DATA_DIR"], "heartbeat.lock"))
	var ee *exec.ExitError
	if err := exec.Command("pgrep", "-f", "sleep 302").Run(); !errors.As(err, &ee) || ee.ExitCode() != 1 {
		t.Errorf("pgrep -f 'sleep 302' = %v, want exit 1: the agent's command still runs after the stop", err)
	}

	// Run now again: the next run resumes the transcript and completes.
	pollJS(t, browser, "Run now is offered again", `!!document.getElementById("run-now")`, 30*time.Second)
	clickByID(t, browser, "run-now", 10*time.Second)
	pollJS(t, browser, "the second run completes",
		`document.querySelector(".runs .run-status").textContent === "completed"`, time.Minute)
	waitUnlocked(t, filepath.Join(ta.env["BONSAI_DATA_DIR"], "heartbeat.lock"))
	cancel()
	<-done
}

// fileAppears reports whether path exists within the given time.
func fileAppears(path string, within time.Duration) bool {
	for deadline := time.Now().Add(within); ; time.Sleep(50 * time.Millisecond) {
		if _, err := os.Stat(path); err == nil {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
	}
}

// waitUnlocked waits until no beat holds the heartbeat lock, so that the
// beat a test started is over before its directories go.
func waitUnlocked(t *testing.T, lockFile string) {
	t.Helper()
	for i := 0; i < 600; i++ {
		l, err := heartbeat.TryLock(lockFile)
		if err == nil {
			l.Unlock()
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatal("the beat never released the heartbeat lock")
}

// clickByID clicks the element with the given id once it is there, in one
// script: the live updates swap the run controls, so a click that looks
// the node up first can find it gone ("Could not find node with given id").
func clickByID(t *testing.T, ctx context.Context, id string, within time.Duration) {
	t.Helper()
	pollJS(t, ctx, "clicking #"+id, `(() => {
		const el = document.getElementById(`+strconv.Quote(id)+`);
		if (!el) return false;
		el.click();
		return true;
	})()`, within)
}
