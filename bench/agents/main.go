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
	"flag"
	"fmt"
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

	"github.com/bonsai-run/bonsai/bench/internal/scripted"
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
	model := newModel(latency)
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
	b := scripted.Board{Projects: 1, Tickets: tickets,
		Project: board.Project{Agent: board.AgentSettings{MaxAgents: int64(maxAgents), Sandbox: sandbox}},
		Ticket:  board.Ticket{Title: "Change", Description: "An independent change."}}
	if err := b.Write(db, dir); err != nil {
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

// workedTickets counts the tickets with at least one run.
func workedTickets(db string) (int, error) {
	ctx := context.Background()
	s, err := sqlite.Open(ctx, db)
	if err != nil {
		return 0, err
	}
	defer s.Close()
	ts, err := s.Tickets(ctx, store.TicketFilter{ProjectSlug: scripted.Slug(0)})
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

// model is an Anthropic Messages endpoint that answers every request
// after latency with a final text (scripted.Model), counting the
// requests open at once.
type model struct {
	answer http.Handler

	mu         sync.Mutex
	open, most int
}

func newModel(latency time.Duration) *model {
	return &model{answer: scripted.Model(latency, func(w http.ResponseWriter, _ int) { scripted.StreamText(w, "Done for now.") })}
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
	m.mu.Lock()
	m.open++
	m.most = max(m.most, m.open)
	m.mu.Unlock()
	defer func() {
		m.mu.Lock()
		m.open--
		m.mu.Unlock()
	}()
	m.answer.ServeHTTP(w, r)
}
