package workspace_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/bonsai-run/bonsai/internal/gittest"
	"github.com/bonsai-run/bonsai/internal/workspace"
)

// templateProvider is a provider whose git reads globalConfig as its
// global config and no system config.
func templateProvider(t *testing.T, globalConfig string) (*workspace.Provider, *recorder, string) {
	t.Helper()
	data := t.TempDir()
	rec := &recorder{}
	p, err := workspace.New(workspace.Options{
		Projects:  filepath.Join(data, "projects"),
		Worktrees: filepath.Join(data, "worktrees"),
		Open:      rec.open,
		RemoteEnv: []string{"GIT_CONFIG_GLOBAL=" + globalConfig, "GIT_CONFIG_NOSYSTEM=1", "BONSAI_TEST_CREDENTIAL=secret"},
	})
	if err != nil {
		t.Fatal(err)
	}
	return p, rec, data
}

// A clone skips git's own templates (sample hooks, description,
// info/exclude: files nothing reads) when no template directory is
// chosen, and asks git once for a beat's clones; the agent's commits and
// Bonsai's commit-msg hook work without them. A template directory the
// user's config chooses is copied as before.
func TestProvider_CloneTemplates(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	t.Run("none chosen", func(t *testing.T) {
		t.Parallel()
		global := filepath.Join(t.TempDir(), "gitconfig")
		os.WriteFile(global, []byte("[user]\n\tname = Someone\n\temail = someone@example.com\n"), 0o600)
		p, rec, data := templateProvider(t, global)
		first, second := project(newRepo(t)), project(newRepo(t))
		second.Slug = "other"
		start := time.Now()
		ws := prepare(t, p, first, ticket(1, "One"))
		prepare(t, p, second, ticket(1, "Two"))
		took := time.Since(start)
		gitDir := filepath.Join(data, "projects", "demo", ".git")
		for _, name := range []string{"description", "hooks", "info", "branches"} {
			if _, err := os.Lstat(filepath.Join(gitDir, name)); !os.IsNotExist(err) {
				t.Errorf("the clone has .git/%s from git's templates (%v)", name, err)
			}
		}
		asked := rec.find("init.templateDir")
		// The answer is kept a minute: a machine so slow that the two
		// clones took longer may ask twice.
		if len(asked) == 0 || len(asked) > 1 && took < 50*time.Second {
			t.Fatalf("git was asked for init.templateDir %d times for two clones in %v, want once", len(asked), took)
		}
		for _, kv := range asked[0].env {
			if kv == "BONSAI_TEST_CREDENTIAL=secret" {
				t.Error("the template question got the runtime's credentials")
			}
		}
		if err := p.NameModel("demo", 1, "test-model"); err != nil {
			t.Fatal(err)
		}
		os.WriteFile(filepath.Join(ws.Root, "a.txt"), []byte("a\n"), 0o644)
		gittest.Run(t, ws.Root, "add", "a.txt")
		gittest.Run(t, ws.Root, "commit", "-q", "-m", "Add a")
		if msg := gittest.Run(t, ws.Root, "log", "-1", "--format=%B"); !containsLine(msg, "Co-authored-by: test-model <bonsai@localhost>") {
			t.Errorf("the commit's message is %q, want the model's trailer from Bonsai's hook", msg)
		}
	})
	t.Run("chosen by the user", func(t *testing.T) {
		t.Parallel()
		tmpl := t.TempDir()
		os.MkdirAll(filepath.Join(tmpl, "hooks"), 0o755)
		os.WriteFile(filepath.Join(tmpl, "hooks", "pre-commit"), []byte("#!/bin/sh\nexit 0\n"), 0o755)
		global := filepath.Join(t.TempDir(), "gitconfig")
		os.WriteFile(global, []byte("[init]\n\ttemplateDir = "+tmpl+"\n"), 0o600)
		p, _, data := templateProvider(t, global)
		if _, err := p.Prepare(ctx, project(newRepo(t)), ticket(1, "One")); err != nil {
			t.Fatal(err)
		}
		if _, err := os.Stat(filepath.Join(data, "projects", "demo", ".git", "hooks", "pre-commit")); err != nil {
			t.Errorf("the user's template hook is not in the clone: %v", err)
		}
	})
}

func containsLine(s, line string) bool {
	return slices.Contains(strings.Split(s, "\n"), line)
}
