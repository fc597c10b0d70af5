package cli_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bonsai-run/bonsai/internal/llm/llmtest"
)

// TestRun_KeyBaseURLAndSystemPromptFlags: --api-key and --base-url reach
// the provider with no variable set, --system-prompt replaces the
// system prompt (AGENTS.md unread) and --append-system-prompt adds to
// it after the project's instructions; the key is never printed.
func TestRun_KeyBaseURLAndSystemPromptFlags(t *testing.T) {
	t.Parallel()
	srv := llmtest.NewServer(t, textServerTurn("One."), textServerTurn("Two."))
	srv.RequireKey("flag-key-0123456789")
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "AGENTS.md"), []byte("PROJECT RULES"), 0o644); err != nil {
		t.Fatal(err)
	}
	run := func(args ...string) string {
		t.Helper()
		cmd := exec.Command("bonsai", append([]string{"run", "-p", "--no-session", "--cwd", dir,
			"--api-key", "flag-key-0123456789", "--base-url", srv.URL}, args...)...)
		cmd.Env = append(cleanEnv(), "BONSAI_DATA_DIR="+filepath.Join(dir, "data"), "HOME="+dir)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("bonsai run %v: %v\n%s", args, err, out)
		}
		if strings.Contains(string(out), "flag-key-0123456789") {
			t.Errorf("the key was printed:\n%s", out)
		}
		return string(out)
	}
	if out := run("--system-prompt", "YOU ARE A TEST", "hi"); !strings.Contains(out, "One.") {
		t.Fatalf("no answer:\n%s", out)
	}
	run("--append-system-prompt", "ALSO THIS", "hi")
	reqs := srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests, want 2", len(reqs))
	}
	first, second := system(reqs[0]), system(reqs[1])
	if !strings.HasPrefix(first, "YOU ARE A TEST") || strings.Contains(first, "PROJECT RULES") {
		t.Errorf("--system-prompt: the system prompt is %q", first)
	}
	if i := strings.Index(second, "PROJECT RULES"); i < 0 || !strings.Contains(second[i:], "ALSO THIS") {
		t.Errorf("--append-system-prompt: the system prompt ends %q", second[max(len(second)-200, 0):])
	}
}

// system is the text of an Anthropic request's system prompt.
func system(r llmtest.Request) string {
	var b strings.Builder
	switch s := r.Body["system"].(type) {
	case string:
		b.WriteString(s)
	case []any:
		for _, p := range s {
			if m, ok := p.(map[string]any); ok {
				if t, ok := m["text"].(string); ok {
					b.WriteString(t)
				}
			}
		}
	}
	return b.String()
}

// cleanEnv is the environment without the providers' keys and base URLs.
func cleanEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		if strings.HasSuffix(name, "_API_KEY") || strings.HasSuffix(name, "_BASE_URL") {
			continue
		}
		env = append(env, kv)
	}
	return env
}
