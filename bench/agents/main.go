// Command agents measures how fast one project's backlog drains with
// several agents per project (issue 31, docs/heartbeat.md "Many agents
// per project"): -tickets independent IN_PROGRESS tickets in one project
// on its own repository, a model that answers every request after
// -latency with a final text, and `bonsai heartbeat` run again and again
// until every ticket has had a run, for each --max-agents value in -n.
// It prints the beats it took, the wall time, tickets per minute, and the
// most model requests open at once.
//
//	go run ./bench/agents [-tickets 30] [-latency 300ms] [-n 1,3,10] [-sandbox off]
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/store"
	"github.com/bonsai-run/bonsai/internal/store/sqlite"
)

func main() {
	tickets := flag.Int("tickets", 30, "independent IN_PROGRESS tickets in the project")
	latency := flag.Duration("latency", 300*time.Millisecond, "how long the model takes to answer")
	ns := flag.String("n", "1,3,10", "the project's --max-agents values to measure")
	sandbox := flag.String("sandbox", "off", "the project's sandbox: off or required")
	flag.Parse()
	if err := run(*tickets, *latency, *ns, *sandbox); err != nil {
		log.Fatal(err)
	}
}

func run(tickets int, latency time.Duration, ns, sandbox string) error {
	tmp, err := os.MkdirTemp("", "bonsai-agents-bench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	bin := filepath.Join(tmp, "bonsai")
	build := exec.Command("go", "build", "-o", bin, "./cmd/bonsai")
	build.Stdout, build.Stderr = os.Stdout, os.Stderr
	if err := build.Run(); err != nil {
		return fmt.Errorf("build: %w", err)
	}
	model := &model{latency: latency}
	srv := httptest.NewServer(model)
	defer srv.Close()
	fmt.Printf("%d independent tickets in one project, model latency %v, sandbox %s, heartbeat.maxConcurrentAgents 16\n",
		tickets, latency, sandbox)
	for _, f := range strings.Split(ns, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil {
			return fmt.Errorf("-n: %w", err)
		}
		model.reset()
		beats, took, err := drain(bin, filepath.Join(tmp, "n"+f), srv.URL, tickets, n, board.SandboxMode(sandbox))
		if err != nil {
			return err
		}
		fmt.Printf("  --max-agents %-3d %3d beats %7.1fs  %6.1f tickets/min  at most %d requests at once\n",
			n, beats, took.Seconds(), float64(tickets)/took.Minutes(), model.peak())
	}
	return nil
}

// drain seeds a data directory and runs beats until every ticket has a
// run, returning the beats and the wall time they took.
func drain(bin, dir, modelURL string, tickets, maxAgents int, sandbox board.SandboxMode) (int, time.Duration, error) {
	data := filepath.Join(dir, "data")
	if err := os.MkdirAll(data, 0o755); err != nil {
		return 0, 0, err
	}
	db := filepath.Join(data, "bonsai.db")
	if err := seed(db, filepath.Join(dir, "repo"), tickets, maxAgents, sandbox); err != nil {
		return 0, 0, err
	}
	env := append(os.Environ(), "BONSAI_DATA_DIR="+data, "ANTHROPIC_API_KEY=bench", "ANTHROPIC_BASE_URL="+modelURL)
	set := exec.Command(bin, "config", "set", "heartbeat.maxConcurrentAgents", "16")
	set.Env = env
	if out, err := set.CombinedOutput(); err != nil {
		return 0, 0, fmt.Errorf("config set: %v\n%s", err, out)
	}
	start := time.Now()
	for beats := 1; beats <= 4*tickets; beats++ {
		cmd := exec.Command(bin, "heartbeat")
		cmd.Env = env
		if out, err := cmd.CombinedOutput(); err != nil {
			return 0, 0, fmt.Errorf("heartbeat: %v\n%s", err, out)
		}
		worked, err := workedTickets(db)
		if err != nil {
			return 0, 0, err
		}
		if worked >= tickets {
			return beats, time.Since(start), nil
		}
	}
	return 0, 0, fmt.Errorf("--max-agents %d: %d beats did not work every ticket", maxAgents, 4*tickets)
}

// seed creates the project, its repository and its tickets.
func seed(db, repo string, tickets, maxAgents int, sandbox board.SandboxMode) error {
	if err := gitRepo(repo); err != nil {
		return err
	}
	ctx := context.Background()
	s, err := sqlite.Open(ctx, db)
	if err != nil {
		return err
	}
	defer s.Close()
	p := board.Project{Slug: "demo", Name: "demo", Repo: repo, DefaultBranch: "main", Active: true}
	p.Agent.MaxAgents, p.Agent.Sandbox = int64(maxAgents), sandbox
	if _, err := s.CreateProject(ctx, p); err != nil {
		return err
	}
	for i := range tickets {
		_, err := s.CreateTicket(ctx, board.Ticket{ProjectSlug: "demo", Title: fmt.Sprintf("Change %d", i+1),
			Description: "An independent change.", State: board.InProgress, Priority: 2}, board.Human)
		if err != nil {
			return err
		}
	}
	return nil
}

// workedTickets counts the tickets with at least one run.
func workedTickets(db string) (int, error) {
	ctx := context.Background()
	s, err := sqlite.Open(ctx, db)
	if err != nil {
		return 0, err
	}
	defer s.Close()
	ts, err := s.Tickets(ctx, store.TicketFilter{ProjectSlug: "demo"})
	if err != nil {
		return 0, err
	}
	n := 0
	for _, t := range ts {
		runs, err := s.Runs(ctx, t.Ref())
		if err != nil {
			return 0, err
		}
		if len(runs) > 0 {
			n++
		}
	}
	return n, nil
}

func gitRepo(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "README.md"), []byte("# bench\n"), 0o644); err != nil {
		return err
	}
	for _, args := range [][]string{{"init", "-q", "-b", "main"}, {"add", "."}, {"commit", "-q", "-m", "initial"}} {
		c := exec.Command("git", args...)
		c.Dir = dir
		c.Env = append(os.Environ(), "GIT_AUTHOR_NAME=bench", "GIT_AUTHOR_EMAIL=b@example.com",
			"GIT_COMMITTER_NAME=bench", "GIT_COMMITTER_EMAIL=b@example.com")
		if out, err := c.CombinedOutput(); err != nil {
			return fmt.Errorf("git %v: %v\n%s", args, err, out)
		}
	}
	return nil
}

// model is an Anthropic Messages endpoint that answers every request
// after latency with a final text, counting the requests open at once.
type model struct {
	latency time.Duration

	mu         sync.Mutex
	open, most int
}

func (m *model) reset() {
	m.mu.Lock()
	m.open, m.most = 0, 0
	m.mu.Unlock()
}

func (m *model) peak() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.most
}

func (m *model) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Messages []json.RawMessage `json:"messages"`
	}
	body, _ := io.ReadAll(r.Body)
	if err := json.Unmarshal(body, &req); err != nil || r.URL.Path != "/v1/messages" {
		http.Error(w, `{"type":"error","error":{"type":"invalid_request_error","message":"bench"}}`, http.StatusBadRequest)
		return
	}
	m.mu.Lock()
	m.open++
	m.most = max(m.most, m.open)
	m.mu.Unlock()
	defer func() {
		m.mu.Lock()
		m.open--
		m.mu.Unlock()
	}()
	select {
	case <-time.After(m.latency):
	case <-r.Context().Done():
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	ev := func(name string, v any) {
		b, _ := json.Marshal(v)
		fmt.Fprintf(w, "event: %s\ndata: %s\n\n", name, b)
	}
	type o = map[string]any
	ev("message_start", o{"type": "message_start", "message": o{"id": "msg_bench", "type": "message", "role": "assistant",
		"model": "bench", "content": []any{}, "stop_reason": nil, "usage": o{"input_tokens": 1000, "output_tokens": 1}}})
	ev("content_block_start", o{"type": "content_block_start", "index": 0, "content_block": o{"type": "text", "text": ""}})
	ev("content_block_delta", o{"type": "content_block_delta", "index": 0, "delta": o{"type": "text_delta", "text": "Done for now."}})
	ev("content_block_stop", o{"type": "content_block_stop", "index": 0})
	ev("message_delta", o{"type": "message_delta", "delta": o{"stop_reason": "end_turn"}, "usage": o{"output_tokens": 20}})
	ev("message_stop", o{"type": "message_stop"})
}
