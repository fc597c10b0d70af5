package engine_test

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bonsai-run/bonsai/internal/engine"
	"github.com/bonsai-run/bonsai/internal/executor"
	"github.com/bonsai-run/bonsai/internal/executor/local"
	"github.com/bonsai-run/bonsai/internal/llm/llmtest"
)

// deadURL is the URL of a loopback port nothing listens on any more: a
// board server that is gone.
func deadURL(t *testing.T) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	u := "http://" + ln.Addr().String()
	ln.Close()
	return u
}

// runCodexHooked runs the real Codex once on a model that asks to run
// `touch marker`, its policy hook posting to hook; with profiles, the
// home holds login profiles that end every login shell with "exit 0"
// (what an agent's command can write into the sandbox's home). It
// reports whether the command ran, and what the model was told.
func runCodexHooked(t *testing.T, hook string, profiles bool) (ran bool, told string) {
	bin := requireCLI(t, "codex")
	srv := llmtest.NewServer(t, call("call_1", "exec_command", `{"cmd":"touch marker"}`), text("Done."))
	dir := t.TempDir()
	root, cfg, home, userHome := filepath.Join(dir, "work"), filepath.Join(dir, "config"), filepath.Join(dir, "home"), filepath.Join(dir, "user")
	for _, d := range []string{root, cfg, home, userHome} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []string{".profile", ".bash_profile", ".bash_login", ".zprofile"} {
		if !profiles {
			break
		}
		if err := os.WriteFile(filepath.Join(userHome, f), []byte("exit 0\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cmd, err := engine.Codex{}.Command(engine.Invocation{Bin: bin, ConfigDir: cfg, HomeDir: home, Prompt: "Touch the marker.",
		Endpoint: engine.Endpoint{Wire: "openai-responses", Responses: true, Provider: "openai", BaseURL: srv.URL + "/v1", Key: "k", Model: "gpt-5-codex"},
		// The hook alone: Codex ends before its first turn when its
		// (required) board MCP server cannot be reached.
		MCP: engine.MCPEndpoint{Name: "bonsai", Hook: hook + "/hook/pretooluse", Token: "run-token"}})
	if err != nil {
		t.Fatal(err)
	}
	for name, data := range cmd.Files {
		if err := os.WriteFile(filepath.Join(cfg, name), []byte(data), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	ex, err := local.New(root, local.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var out, stderr strings.Builder
	_, err = ex.Exec(context.Background(), cmd.Argv, executor.RunOptions{Env: append(cmd.Env, "HOME="+userHome),
		Stdin: strings.NewReader(cmd.Stdin), Output: &out, Stderr: &stderr})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range srv.Requests() {
		told += string(r.Raw)
	}
	if srv.Remaining() != 0 {
		t.Fatalf("codex stopped early:\n%s\n%s", out.String(), stderr.String())
	}
	_, statErr := os.Stat(filepath.Join(root, "marker"))
	return statErr == nil, told
}

// Codex's policy hook fails closed: when the run's board server cannot
// be reached, the command does not run, and the model reads why.
func TestCodexHookFailsClosed(t *testing.T) {
	t.Parallel()
	for _, profiles := range []bool{false, true} {
		// With profiles, a login shell would exit 0 before the hook's
		// command, which Codex takes as "allowed": Codex must run its
		// hooks with none.
		t.Run(map[bool]string{false: "board gone", true: "board gone, exit 0 in the profiles"}[profiles], func(t *testing.T) {
			t.Parallel()
			ran, told := runCodexHooked(t, deadURL(t), profiles)
			if ran {
				t.Fatal("the command ran though its hook could not reach the board server")
			}
			if !strings.Contains(told, "could not judge the command, so it did not run") {
				t.Errorf("the model was not told why (the hook did not block):\n%.3000s", told)
			}
		})
	}
	t.Run("board answers", func(t *testing.T) {
		t.Parallel()
		var calls int
		board := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path != "/hook/pretooluse" || r.Header.Get("Authorization") != "Bearer run-token" {
				http.NotFound(w, r)
				return
			}
			calls++
			w.Write([]byte("{}"))
		}))
		defer board.Close()
		if ran, told := runCodexHooked(t, board.URL, false); !ran || calls != 1 {
			t.Fatalf("an allowed command: ran %v after %d hook calls:\n%.3000s", ran, calls, told)
		}
	})
}
