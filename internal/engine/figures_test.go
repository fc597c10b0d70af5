//go:build unix

package engine_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/bonsai-run/bonsai/internal/engine"
	"github.com/bonsai-run/bonsai/internal/executor"
	"github.com/bonsai-run/bonsai/internal/executor/local"
	"github.com/bonsai-run/bonsai/internal/llm"
	"github.com/bonsai-run/bonsai/internal/llm/llmtest"
)

// TestFigures measures, with BONSAI_ENGINE_FIGURES=<program>, what one run of
// each engine CLI costs over Bonsai's in-process agent: the wall time of
// a run answering with one text turn (start-up, one request to a local
// fake server, exit) and the CLI's peak resident memory, median of 5.
func TestFigures(t *testing.T) {
	if os.Getenv("BONSAI_ENGINE_FIGURES") == "" {
		t.Skip("set BONSAI_ENGINE_FIGURES=claude (or opencode, codex) to measure")
	}
	for _, c := range []struct {
		e       engine.Engine
		program string
		wire    llm.WireFormat
		prov    string
		path    string
	}{
		{engine.Claude{}, "claude", llm.WireAnthropicMessages, "anthropic", ""},
		{engine.OpenCode{}, "opencode", llm.WireAnthropicMessages, "anthropic", ""},
		{engine.Codex{}, "codex", llm.WireOpenAIChat, "openai", "/v1"},
	} {
		if p := os.Getenv("BONSAI_ENGINE_FIGURES"); p != c.program {
			continue // one engine per test process: RUSAGE_CHILDREN is the peak of every child
		}
		bin := requireCLI(t, c.program)
		var walls []time.Duration
		var rss []int64
		for i := 0; i < 5; i++ {
			srv := llmtest.NewServer(t, text("ok"))
			dir := t.TempDir()
			cmd, err := c.e.Command(engine.Invocation{Bin: bin, ConfigDir: filepath.Join(dir, "state"), HomeDir: filepath.Join(dir, "state"), Prompt: "say ok",
				Endpoint: engine.Endpoint{Wire: c.wire, Responses: c.prov == "openai", Provider: c.prov, BaseURL: srv.URL + c.path, Key: "k", Model: "m"}})
			if err != nil {
				t.Fatal(err)
			}
			os.MkdirAll(filepath.Join(dir, "state"), 0o700)
			ex, _ := local.New(dir, local.Options{})
			var out strings.Builder
			start := time.Now()
			_, err = ex.Exec(context.Background(), cmd.Argv, executor.RunOptions{Env: cmd.Env, Stdin: strings.NewReader(cmd.Stdin), Output: &out})
			walls = append(walls, time.Since(start))
			if err != nil || srv.Remaining() != 0 {
				t.Fatalf("%s: %v\n%s", c.program, err, out.String())
			}
			var ru syscall.Rusage
			_ = syscall.Getrusage(syscall.RUSAGE_CHILDREN, &ru)
			rss = append(rss, ru.Maxrss)
		}
		sort.Slice(walls, func(i, j int) bool { return walls[i] < walls[j] })
		fmt.Printf("%-9s run of one text turn: median %v (min %v, max %v); peak RSS %d MiB\n",
			c.program, walls[2].Round(time.Millisecond), walls[0].Round(time.Millisecond), walls[4].Round(time.Millisecond), rss[4]/1024)
	}
}
