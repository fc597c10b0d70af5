//go:build unix

package engine_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/engine"
	"github.com/bonsai-run/bonsai/internal/executor"
	"github.com/bonsai-run/bonsai/internal/llm/llmtest"
)

// On a busy machine the board server may answer an engine's MCP
// handshake late. Claude Code in print mode connected its MCP servers in
// the background and sent its first model request without them, so the
// agent worked without its board (CI saw one call ticket_comment, get
// "no such tool" and go on). Each engine waits as long as it takes: here
// the board server's answers come 15 s after the engine started, and
// the agent's ticket_comment still reaches the board. OpenCode's case is
// TestOpenCodeRunsATicket, whose run has the same slow board server: an
// OpenCode run costs about 6 s of CPU, so one run checks both.
func TestEnginesWaitForASlowBoardServer(t *testing.T) {
	t.Parallel()
	cases := []struct {
		e              engine.Engine
		program, model string
		tool           string
		env            func(url string) map[string]string
	}{
		{engine.Claude{}, "claude", "anthropic/claude-sonnet-4-5", "mcp__bonsai__ticket_comment", func(u string) map[string]string {
			return map[string]string{"ANTHROPIC_BASE_URL": u, "ANTHROPIC_API_KEY": "sk-test"}
		}},
		{engine.Codex{}, "codex", "openai/gpt-5-codex", "mcp__bonsai::ticket_comment", func(u string) map[string]string {
			return map[string]string{"OPENAI_BASE_URL": u + "/v1", "OPENAI_API_KEY": "sk-test"}
		}},
	}
	for _, c := range cases {
		t.Run(c.program, func(t *testing.T) {
			t.Parallel()
			srv := llmtest.NewServer(t,
				call("toolu_1", c.tool, `{"body":"reached the board"}`),
				text("Done."))
			f := newFixture(t, c.e, c.program, c.model, c.env(srv.URL))
			f.job.Workspace.Exec = &slowBoard{Executor: f.job.Workspace.Exec, t: t, delay: 15 * time.Second}
			out, err := f.runner.RunAgent(context.Background(), f.job)
			if err != nil {
				t.Fatal(err)
			}
			if out.Status != board.RunCompleted || len(f.calls) != 1 || !strings.Contains(f.calls[0], "reached the board") {
				t.Fatalf("outcome %+v, board tool calls %q: the agent started without its board tools", out, f.calls)
			}
		})
	}
}

// boardURL is the board server's address as the engines are told it.
var boardURL = regexp.MustCompile(`http://127\.0\.0\.1:[0-9]+/mcp`)

// slowBoard runs commands with the board server, wherever their argv or
// environment names it, behind a proxy that holds every request until
// delay has passed since the command started.
type slowBoard struct {
	executor.Executor
	t     *testing.T
	delay time.Duration

	mu    sync.Mutex
	front map[string]string // board URL → proxy URL
}

func (s *slowBoard) Exec(ctx context.Context, argv []string, o executor.RunOptions) (executor.Exit, error) {
	until := time.Now().Add(s.delay)
	argv = append([]string(nil), argv...)
	for i := range argv {
		argv[i] = boardURL.ReplaceAllStringFunc(argv[i], func(u string) string { return s.proxy(u, until) })
	}
	o.Env = append([]string(nil), o.Env...)
	for i := range o.Env {
		o.Env[i] = boardURL.ReplaceAllStringFunc(o.Env[i], func(u string) string { return s.proxy(u, until) })
	}
	return s.Executor.Exec(ctx, argv, o)
}

// proxy returns the URL of a delaying proxy in front of the board
// server at board.
func (s *slowBoard) proxy(board string, until time.Time) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if p, ok := s.front[board]; ok {
		return p
	}
	target, err := url.Parse(board)
	if err != nil {
		s.t.Fatal(err)
	}
	rp := httputil.NewSingleHostReverseProxy(&url.URL{Scheme: target.Scheme, Host: target.Host})
	front := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-time.After(time.Until(until)):
		case <-r.Context().Done():
			return
		}
		rp.ServeHTTP(w, r)
	}))
	s.t.Cleanup(front.Close)
	if s.front == nil {
		s.front = map[string]string{}
	}
	s.front[board] = front.URL + target.Path
	return s.front[board]
}
