package cli_test

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bonsai-run/bonsai/internal/cli"
	"github.com/bonsai-run/bonsai/internal/llm"
	"github.com/bonsai-run/bonsai/internal/llm/llmtest"
)

// runEnv points `bonsai run` at srv with a fresh data directory.
func runEnv(t testing.TB, srv *llmtest.Server) string {
	dir := t.TempDir()
	work := filepath.Join(dir, "work")
	if err := os.MkdirAll(work, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("BONSAI_DATA_DIR", filepath.Join(dir, "data"))
	t.Setenv("HOME", dir)
	t.Setenv("ANTHROPIC_BASE_URL", srv.URL)
	t.Setenv("ANTHROPIC_API_KEY", "test-key")
	return work
}

// TestRun_FirstRequestSize keeps the system prompt plus the default tool
// schemas small: they are re-sent on every turn (target ≤ 6 KB).
func TestRun_FirstRequestSize(t *testing.T) {
	srv := llmtest.NewServer(t, textTurn("Hi."))
	work := runEnv(t, srv)
	var out, errOut strings.Builder
	if code := cli.Run(context.Background(), []string{"run", "--cwd", work, "-p", "hello"}, strings.NewReader(""), &out, &errOut); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	raw := srv.Requests()[0].Raw
	t.Logf("first request: %d bytes", len(raw))
	if len(raw) > 6144 {
		t.Errorf("first request is %d bytes, more than 6 KB", len(raw))
	}
}

// BenchmarkRun_PrintHello measures `bonsai run -p hello` in process, from
// argument parsing to the fsynced transcript, against a server answering
// instantly. Target: a few ms above the HTTP round trip (the whole
// process, start-up included, within 2× a minimal Go program doing the
// same HTTP and fsync work; see bench/agent).
func BenchmarkRun_PrintHello(b *testing.B) {
	srv := llmtest.NewServer(b)
	work := runEnv(b, srv)
	for b.Loop() {
		srv.Push(llmtest.ServerTurn{Message: llm.Message{Role: llm.RoleAssistant, Content: []llm.Part{llm.Text("Hi.")}}})
		if code := cli.Run(context.Background(), []string{"run", "--cwd", work, "-p", "hello"}, strings.NewReader(""), io.Discard, io.Discard); code != 0 {
			b.Fatalf("exit %d", code)
		}
	}
}

// BenchmarkRun_Session50 runs a 50-turn session in which each turn reads
// a 2,000-line file, in process with --mode json. Target: per turn at most
// 1 ms above the HTTP and fsync work, not growing with the context (see
// bench/agent for the comparison with a minimal loop).
func BenchmarkRun_Session50(b *testing.B) {
	srv := llmtest.NewServer(b)
	work := runEnv(b, srv)
	var file strings.Builder
	for i := range 2000 {
		file.WriteString("line ")
		file.WriteString(strings.Repeat("x", 4))
		file.WriteString(string(rune('a' + i%26)))
		file.WriteString(" abcde\n")
	}
	if err := os.WriteFile(filepath.Join(work, "big.txt"), []byte(file.String()), 0o644); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		for range 50 {
			srv.Push(llmtest.ServerTurn{Message: llm.Message{Role: llm.RoleAssistant,
				Content: []llm.Part{llm.ToolCall("toolu_1", "read", []byte(`{"path":"big.txt"}`))},
				Usage:   &llm.Usage{Input: 1000, Output: 10}}})
		}
		srv.Push(textTurn("Done."))
		if code := cli.Run(context.Background(), []string{"run", "--cwd", work, "--mode", "json", "read it"}, strings.NewReader(""), io.Discard, io.Discard); code != 0 {
			b.Fatalf("exit %d", code)
		}
	}
}
