// Command workers measures how many tickets per minute 1, 2 and 4 worker
// processes work together on one Postgres board (issue 18), each worker a
// machine of its own: its data directory, clones, lock file and its
// `bonsai worker` process, run until no ticket is left. The
// board has -projects projects × -tickets IN_PROGRESS tickets, every
// project on its own git repository served over HTTP (git http-backend)
// as every machine must clone it; a fake model answers every request
// after -latency with one turn that commits a file and moves the ticket
// to VERIFICATION, so a run is one model request. It prints one row per
// worker count: tickets per minute, wall time and beats.
//
//	go run ./bench/workers [-workers 1,2,4] [-projects 20] [-tickets 5] [-latency 500ms] [-agents auto]
//
// -agents is heartbeat.maxConcurrentAgents on every machine: "auto" sizes
// each machine alone (four per core, at most 16); a number set by hand
// also caps the agents of all the machines together, as on any shared
// board. It starts a throwaway Postgres cluster (the postgresql package's
// initdb and pg_ctl, as the tests do), or uses the server
// BONSAI_TEST_DATABASE_URL names, a new schema per worker count.
//
// A worker beats again a second after a beat that completed a run, and
// five seconds after one whose tickets waited for other workers' leases;
// heartbeat.intervalSec is set to its least, 10 s, for the rest.
package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"log"
	"net/http/cgi"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/llm"
	"github.com/bonsai-run/bonsai/internal/llm/llmtest"
	"github.com/bonsai-run/bonsai/internal/store"
	"github.com/bonsai-run/bonsai/internal/store/postgres"
	"github.com/bonsai-run/bonsai/internal/store/postgres/pgtest"
)

func main() {
	workers := flag.String("workers", "1,2,4", "worker counts to measure, one row each")
	projects := flag.Int("projects", 20, "projects on the board")
	tickets := flag.Int("tickets", 5, "IN_PROGRESS tickets per project")
	latency := flag.Duration("latency", 500*time.Millisecond, "how long the model takes to answer each request")
	agents := flag.String("agents", "auto", "heartbeat.maxConcurrentAgents of every machine")
	flag.Parse()
	var counts []int
	for _, f := range strings.Split(*workers, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 1 {
			log.Fatalf("-workers: %q is not a worker count", f)
		}
		counts = append(counts, n)
	}
	if err := run(counts, *projects, *tickets, *latency, *agents); err != nil {
		log.Fatal(err)
	}
}

// benchTB gives llmtest.NewServer the one testing.TB method it uses.
type benchTB struct {
	testing.TB
	cleanups []func()
}

func (b *benchTB) Cleanup(f func()) { b.cleanups = append(b.cleanups, f) }

// env is what every measurement shares: the binary, the servers.
type env struct {
	tmp, bonsai string
	pg          string // the Postgres server's URL
	git         string // the git server's URL; repositories under tmp/git
	model       *llmtest.Server
	latency     time.Duration
	agents      string
}

func run(counts []int, projects, tickets int, latency time.Duration, agents string) error {
	tmp, err := os.MkdirTemp("", "bonsai-workers-bench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	e := &env{tmp: tmp, bonsai: filepath.Join(tmp, "bonsai"), latency: latency, agents: agents}
	build := exec.Command("go", "build", "-o", e.bonsai, "./cmd/bonsai")
	build.Stdout, build.Stderr = os.Stdout, os.Stderr
	if err := build.Run(); err != nil {
		return fmt.Errorf("build: %w", err)
	}
	if e.pg = os.Getenv(pgtest.EnvURL); e.pg == "" {
		c, err := pgtest.Start(context.Background())
		if err != nil {
			return fmt.Errorf("start Postgres: %w", err)
		}
		defer c.Stop()
		e.pg = c.URL
	}
	root := filepath.Join(tmp, "git")
	git := httptest.NewServer(&cgi.Handler{Path: gitPath(), Args: []string{"http-backend"}, Dir: root,
		Env: []string{"GIT_PROJECT_ROOT=" + root, "GIT_HTTP_EXPORT_ALL=1"}})
	defer git.Close()
	e.git = git.URL
	tb := &benchTB{}
	e.model = llmtest.NewServer(tb)
	defer func() {
		for _, f := range tb.cleanups {
			f()
		}
	}()

	fmt.Printf("%d projects × %d tickets, model latency %v, heartbeat.maxConcurrentAgents %s\n\n", projects, tickets, latency, agents)
	fmt.Println("| workers | tickets per minute | wall time | beats |")
	fmt.Println("|---|---|---|---|")
	for _, n := range counts {
		r, err := e.measure(n, projects, tickets)
		if err != nil {
			return fmt.Errorf("%d workers: %w", n, err)
		}
		fmt.Printf("| %d | %.0f | %.1f s | %d |\n", n, float64(projects*tickets)/r.took.Minutes(), r.took.Seconds(), r.beats)
	}
	return nil
}

func gitPath() string {
	if p, err := exec.LookPath("git"); err == nil {
		return p
	}
	return "git"
}

// result is one measurement.
type result struct {
	took  time.Duration
	beats int
}

// measure seeds a new board and has n machines work it until no ticket
// is IN_PROGRESS.
func (e *env) measure(n, projects, tickets int) (result, error) {
	ctx := context.Background()
	u, drop, err := pgtest.NewSchema(e.pg)
	if err != nil {
		return result{}, err
	}
	defer drop()
	db, err := postgres.Open(ctx, u)
	if err != nil {
		return result{}, err
	}
	defer db.Close()
	dir := filepath.Join(e.tmp, fmt.Sprintf("w%d", n))
	if err := e.seed(ctx, db, fmt.Sprintf("w%d", n), dir, projects, tickets); err != nil {
		return result{}, err
	}
	turn := llmtest.ServerTurn{Delay: e.latency, Message: llm.Message{Role: llm.RoleAssistant, Content: []llm.Part{
		llm.ToolCall("toolu_commit", "bash", []byte(`{"command":"echo done > done.txt && git add done.txt && git commit -q -m 'Add done.txt'"}`)),
		llm.ToolCall("toolu_move", "ticket_move", []byte(`{"to":"VERIFICATION","criteria":[{"criterion":"done.txt exists","evidence":"done.txt committed"}]}`)),
	}, Usage: &llm.Usage{Input: 1000, Output: 40}}}
	for range projects * tickets {
		e.model.Push(turn)
	}

	machines := make([][]string, n)
	for i := range machines {
		m := filepath.Join(dir, fmt.Sprintf("m%d", i+1))
		if err := os.MkdirAll(filepath.Join(m, "home"), 0o755); err != nil {
			return result{}, err
		}
		machines[i] = append(cleanEnv(), "BONSAI_DATA_DIR="+filepath.Join(m, "data"), "HOME="+filepath.Join(m, "home"),
			"BONSAI_DATABASE_URL="+u, "ANTHROPIC_BASE_URL="+e.model.URL, "ANTHROPIC_API_KEY=bench")
		if _, err := e.run(ctx, machines[i], "config", "set", "heartbeat.maxConcurrentAgents", e.agents); err != nil {
			return result{}, err
		}
		if _, err := e.run(ctx, machines[i], "config", "set", "heartbeat.intervalSec", "10"); err != nil {
			return result{}, err
		}
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	start := time.Now()
	workers := make([]*exec.Cmd, len(machines))
	ended := make(chan error, len(machines))
	for i, env := range machines {
		w := exec.CommandContext(ctx, e.bonsai, "worker")
		w.Env = env
		var out bytes.Buffer
		w.Stdout, w.Stderr = &out, &out
		if err := w.Start(); err != nil {
			return result{}, err
		}
		workers[i] = w
		go func() {
			err := w.Wait()
			if err != nil {
				err = fmt.Errorf("worker: %v\n%s", err, out.Bytes())
			}
			ended <- err
		}()
	}
	err = waitDone(ctx, db, ended)
	took := time.Since(start)
	for _, w := range workers {
		w.Process.Signal(syscall.SIGTERM)
	}
	for range workers {
		if werr := <-ended; werr != nil && err == nil {
			err = werr
		}
	}
	if err != nil {
		return result{}, err
	}
	beats := 0
	for _, env := range machines {
		beats += countBeats(env)
	}
	done, err := db.CountTickets(ctx, store.TicketFilter{State: board.Verification})
	if err != nil {
		return result{}, err
	}
	if done != projects*tickets {
		return result{}, fmt.Errorf("%d tickets reached VERIFICATION, want %d", done, projects*tickets)
	}
	return result{took: took, beats: beats}, nil
}

// seed creates the projects, each on a bare repository served as
// e.git/<prefix>/<slug>.git, and their tickets.
func (e *env) seed(ctx context.Context, db *postgres.DB, prefix, dir string, projects, tickets int) error {
	for p := range projects {
		slug := fmt.Sprintf("p%02d", p)
		work := filepath.Join(dir, "src", slug)
		bare := filepath.Join(e.tmp, "git", prefix, slug+".git")
		if err := os.MkdirAll(work, 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(work, "README.md"), []byte("# "+slug+"\n"), 0o644); err != nil {
			return err
		}
		for _, args := range [][]string{{"-C", work, "init", "-q", "-b", "main"}, {"-C", work, "add", "."},
			{"-C", work, "commit", "-q", "-m", "initial"}, {"clone", "-q", "--bare", work, bare},
			{"-C", bare, "config", "http.receivepack", "true"}} {
			c := exec.Command("git", args...)
			c.Env = append(os.Environ(), "GIT_AUTHOR_NAME=bench", "GIT_AUTHOR_EMAIL=bench@example.com",
				"GIT_COMMITTER_NAME=bench", "GIT_COMMITTER_EMAIL=bench@example.com")
			if out, err := c.CombinedOutput(); err != nil {
				return fmt.Errorf("git %v: %v\n%s", args, err, out)
			}
		}
		_, err := db.CreateProject(ctx, board.Project{Slug: slug, Name: slug, Repo: e.git + "/" + prefix + "/" + slug + ".git",
			DefaultBranch: "main", Active: true, Agent: board.AgentSettings{Sandbox: board.SandboxOff}})
		if err != nil {
			return err
		}
		for n := range tickets {
			_, err := db.CreateTicket(ctx, board.Ticket{ProjectSlug: slug, Title: "Ticket " + strconv.Itoa(n+1),
				State: board.InProgress, Criteria: []string{"done.txt exists"}}, board.Human)
			if err != nil {
				return err
			}
		}
	}
	return nil
}

// waitDone waits until no ticket is IN_PROGRESS; a worker that ends
// before that, or a board that stops moving for two minutes, is an error.
func waitDone(ctx context.Context, db store.Store, ended <-chan error) error {
	last, since := -1, time.Now()
	for {
		left, err := db.CountTickets(ctx, store.TicketFilter{State: board.InProgress})
		if err != nil || left == 0 {
			return err
		}
		if left != last {
			last, since = left, time.Now()
		} else if time.Since(since) > 2*time.Minute {
			return fmt.Errorf("the board stopped moving: %d tickets IN_PROGRESS for two minutes", left)
		}
		select {
		case err := <-ended:
			return fmt.Errorf("a worker ended with %d tickets IN_PROGRESS: %v", left, err)
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// countBeats counts the beats a machine's worker ran, from its log.
func countBeats(env []string) int {
	for _, kv := range env {
		if dir, ok := strings.CutPrefix(kv, "BONSAI_DATA_DIR="); ok {
			b, _ := os.ReadFile(filepath.Join(dir, "logs", "heartbeat.log"))
			return bytes.Count(b, []byte(`msg="beat finished"`))
		}
	}
	return 0
}

// run runs the built bonsai with env.
func (e *env) run(ctx context.Context, env []string, args ...string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, e.bonsai, args...)
	cmd.Env = env
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return out, fmt.Errorf("bonsai %s: %v\n%s%s", strings.Join(args, " "), err, out, stderr.Bytes())
	}
	return out, nil
}

// cleanEnv is this process's environment without what would reach the
// user's own board, keys or model.
func cleanEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(k, "BONSAI_") || strings.HasSuffix(k, "_API_KEY") || strings.HasSuffix(k, "_BASE_URL") || k == "HOME" {
			continue
		}
		env = append(env, kv)
	}
	return append(env, "BONSAI_KEYRING=file", "TZ=UTC")
}
