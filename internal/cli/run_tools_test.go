package cli_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/bonsai-run/bonsai/internal/llm/llmtest"
	"github.com/bonsai-run/bonsai/internal/tools"
)

// TestRun_ScreenshotToolOnRequest: `bonsai run` offers the screenshot
// tool only when --tools names it (its schema would weigh on every
// request otherwise), and then the model is offered exactly the tools
// named.
func TestRun_ScreenshotToolOnRequest(t *testing.T) {
	t.Parallel()
	if tools.FindChromium(nil) == "" {
		if os.Getenv("CI") != "" {
			t.Fatal("CI installs Chromium (apt-get install -y chromium)")
		}
		t.Skip("no Chromium installed")
	}
	srv := llmtest.NewServer(t, textServerTurn("One."), textServerTurn("Two."))
	dir := t.TempDir()
	run := func(args ...string) {
		t.Helper()
		cmd := exec.Command("bonsai", append([]string{"run", "-p", "--no-session", "--cwd", dir,
			"--api-key", "k-0123456789", "--base-url", srv.URL}, args...)...)
		cmd.Env = append(cleanEnv(), "BONSAI_DATA_DIR="+filepath.Join(dir, "data"), "HOME="+dir)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("bonsai run %v: %v\n%s", args, err, out)
		}
	}
	run("hi")
	run("--tools", "read,screenshot", "hi")
	reqs := srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests, want 2", len(reqs))
	}
	if got := requestTools(reqs[0]); slices.Contains(got, "screenshot") || !slices.Contains(got, "bash") {
		t.Errorf("by default the tools are %v: want the coding tools without screenshot", got)
	}
	if got := requestTools(reqs[1]); !slices.Equal(got, []string{"read", "screenshot"}) {
		t.Errorf("--tools read,screenshot offered %v", got)
	}
}

// TestRun_ToolsFlagRefusesUnknown: an unknown name in --tools is a usage
// error naming every tool that may be listed.
func TestRun_ToolsFlagRefusesUnknown(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	cmd := exec.Command("bonsai", "run", "-p", "--no-session", "--cwd", dir, "--tools", "read,teleport", "hi")
	cmd.Env = append(cleanEnv(), "BONSAI_DATA_DIR="+filepath.Join(dir, "data"), "HOME="+dir)
	out, err := cmd.CombinedOutput()
	if err == nil || !strings.Contains(string(out), `unknown tool "teleport" (known: read,write,edit,bash,grep,find,ls,screenshot)`) {
		t.Fatalf("err %v, output:\n%s", err, out)
	}
}

// requestTools lists the names of the tools an Anthropic request offers.
func requestTools(r llmtest.Request) []string {
	var names []string
	list, _ := r.Body["tools"].([]any)
	for _, t := range list {
		if m, ok := t.(map[string]any); ok {
			if n, ok := m["name"].(string); ok {
				names = append(names, n)
			}
		}
	}
	return names
}
