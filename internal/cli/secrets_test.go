package cli

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bonsai-run/bonsai/internal/board"
)

// TestSecrets_HeldByTheProcess: the redactor holds the providers' keys, a
// base URL's password, the forge tokens, the web token and a project
// repository URL's token, and heartbeat.log's writer hides them all.
func TestSecrets_HeldByTheProcess(t *testing.T) {
	t.Parallel()
	data := filepath.Join(t.TempDir(), "data")
	if err := seedData(data); err != nil { // a copy of the migrated board
		t.Fatal(err)
	}
	env := map[string]string{
		"BONSAI_DATA_DIR":   data,
		"ANTHROPIC_API_KEY": "sk-ant-secret-0001",
		"GROQ_API_KEY":      "gsk_secret-0002",
		"OLLAMA_BASE_URL":   "http://bob:secret-0003@gpu:11434/v1",
		"GITHUB_TOKEN":      "ghp_secret-0004",
		"GITEA_TOKEN":       "gitea_secret-0006",
	}
	a := newApp(strings.NewReader(""), io.Discard, io.Discard, func(k string) string { return env[k] })
	ctx := context.Background()
	st, err := a.openStore(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer a.close()
	if _, err := st.CreateProject(ctx, board.Project{Slug: "demo", Name: "demo", Repo: "https://x-access-token:ghs_secret-0005@github.com/o/r.git", DefaultBranch: "main", Active: true}); err != nil {
		t.Fatal(err)
	}
	d, _ := a.dataDir()
	tok, err := os.ReadFile(d.WebTokenFile())
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	log := slog.New(slog.NewTextHandler(&redactWriter{w: &out, r: secrets(ctx, a, st)}, nil))
	log.Error("run finished", "error", "echo: sk-ant-secret-0001 gsk_secret-0002 secret-0003 Ym9iOnNlY3JldC0wMDAz ghp_secret-0004 ghs_secret-0005 gitea_secret-0006 "+strings.TrimSpace(string(tok)))
	if strings.Contains(out.String(), "secret-000") || strings.Contains(out.String(), strings.TrimSpace(string(tok))) ||
		strings.Count(out.String(), "[redacted]") != 8 {
		t.Errorf("log line = %s", out.String())
	}
}
