// Command heartbeat measures an idle `bonsai heartbeat` as a whole process
// on a large board against the start-up floor of `bonsai version`, and
// counts the requests the beat makes to a model server.
//
// Target (issue 5): an idle beat over 100 projects × 1,000 tickets takes at
// most 1.5× the wall time of `bonsai version` and makes 0 model requests.
// It times two idle beats: the usual one, on a board nothing wrote to
// since the last beat (answered from heartbeat.json, docs/heartbeat.md
// "Idle beats"), and one right after a write, which reads the whole board.
// The binary timed is a copy of the one built: the linker writes its
// output through a memory map, which leaves it in the page cache in small
// pieces, and every command of such a file starts up to 1 ms slower than
// the same bytes copied or read back from disk (as after a reboot).
//
//	go run ./bench/heartbeat [-projects 100] [-tickets 1000] [-runs 30] [-data DIR]
//
// -schedules N adds N schedules, none due, spread over the projects (issue
// 16: an idle beat with 1,000 schedules stays within the same target):
//
//	go run ./bench/heartbeat -projects 10 -tickets 100 -schedules 1000
//
// With -busy it times instead one beat with work in every project (one
// IN_PROGRESS ticket each, its own repository) against a model that takes
// -latency to answer and has each agent run -command with bash once, for
// each heartbeat.maxConcurrentAgents value in -limits:
//
//	go run ./bench/heartbeat -busy -projects 20 [-latency 2s] [-command CMD] [-limits auto,4,8,16]
//
// With -scale it reproduces issue 28's table: for each -sandbox mode and
// each N in -n, N projects with one ticket each, the limit at N, a model
// answering after -latency (default 300ms with -scale) with -turns bash
// calls then a question, and prints the beat's wall time against one
// wave's model time, the beat's peak RSS and the process tree's, the
// tree's CPU time (whole and a run) and the beat's own CPU a run (its
// threads only, without git, the sandboxes and their commands):
//
//	go run ./bench/heartbeat -scale [-n 1,20,60,200,500] [-sandbox on,off] [-turns 4]
//
// A beat whose runs did not all reach the question has its report and
// its log's warnings printed to stderr. The scripted model and the board
// are bench/internal/scripted's, shared with bench/agents.
//
// -trace (with -scale) runs each beat under strace and prints its
// timeline: every program it started and each model request and answer,
// in seconds since the beat started (the per-run fixed cost of issue 28),
// then how many programs started and how many of them were git's:
//
//	go run ./bench/heartbeat -scale -n 1 -sandbox on -trace
//
// -bin PATH (with -scale) measures that bonsai binary instead of one
// built from this checkout, for a before and after on the same machine.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sync/atomic"
	"time"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/store/sqlite"
)

func main() {
	projects := flag.Int("projects", 100, "projects on the board")
	tickets := flag.Int("tickets", 1000, "tickets per project")
	runs := flag.Int("runs", 30, "timed runs of each command")
	data := flag.String("data", "", "data directory to use and keep (seeded only when it has no bonsai.db)")
	schedules := flag.Int("schedules", 0, "schedules on the board, none due")
	busy := flag.Bool("busy", false, "measure a beat with work in every project instead of an idle one")
	latency := flag.Duration("latency", 2*time.Second, "with -busy: the model's time to answer each request")
	command := flag.String("command", "true", "with -busy: the bash command each agent runs")
	limits := flag.String("limits", "auto,4,8,16", "with -busy: the heartbeat.maxConcurrentAgents values to time")
	scale := flag.Bool("scale", false, "measure one beat of N agents at once (issue 28's table) instead of an idle one")
	ns := flag.String("n", "1,20,60", "with -scale: the numbers of agents")
	sandboxes := flag.String("sandbox", "on,off", "with -scale: the sandbox modes (on, off)")
	turns := flag.Int("turns", 4, "with -scale: bash turns before the question")
	binPath := flag.String("bin", "", "with -scale: the bonsai binary to measure (a copy of it), instead of one built from this checkout")
	trace := flag.Bool("trace", false, "with -scale: run each beat under strace and print its timeline (programs started, model requests)")
	flag.Parse()
	if *scale {
		lat := 300 * time.Millisecond
		flag.Visit(func(f *flag.Flag) {
			if f.Name == "latency" {
				lat = *latency
			}
		})
		if err := runScale(*binPath, splitInts(*ns), splitList(*sandboxes), lat, *turns, *command, *trace); err != nil {
			log.Fatal(err)
		}
		return
	}
	if *busy {
		if err := runBusy(*projects, *latency, *command, splitList(*limits)); err != nil {
			log.Fatal(err)
		}
		return
	}
	if err := bench(*projects, *tickets, *schedules, *runs, *data); err != nil {
		log.Fatal(err)
	}
}

func runScale(given string, ns []int, sandboxes []string, latency time.Duration, turns int, command string, trace bool) error {
	tmp, err := os.MkdirTemp("", "bonsai-heartbeat-bench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	bin := filepath.Join(tmp, "bonsai")
	if given != "" {
		err = copyFile(given, bin) // another build, to compare (before and after)
	} else {
		bin, err = buildCopy(tmp)
	}
	if err != nil {
		return err
	}
	return scaleBench(bin, ns, sandboxes, latency, turns, command, trace)
}

// buildCopy builds bonsai into dir and returns a copy of it (see the
// package comment for why a copy).
func buildCopy(dir string) (string, error) {
	built := filepath.Join(dir, "bonsai-built")
	build := exec.Command("go", "build", "-o", built, "./cmd/bonsai")
	build.Stdout, build.Stderr = os.Stdout, os.Stderr
	if err := build.Run(); err != nil {
		return "", fmt.Errorf("build: %w", err)
	}
	bin := filepath.Join(dir, "bonsai")
	return bin, copyFile(built, bin)
}

func runBusy(projects int, latency time.Duration, command string, limits []string) error {
	tmp, err := os.MkdirTemp("", "bonsai-heartbeat-bench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	bin, err := buildCopy(tmp)
	if err != nil {
		return err
	}
	return busyBench(bin, projects, latency, command, limits)
}

func bench(projects, tickets, schedules, runs int, data string) error {
	tmp, err := os.MkdirTemp("", "bonsai-heartbeat-bench-")
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
	if data == "" {
		data = filepath.Join(tmp, "data")
	}
	if err := os.MkdirAll(data, 0o755); err != nil {
		return err
	}
	if _, err := os.Stat(filepath.Join(data, "bonsai.db")); err != nil {
		start := time.Now()
		if err := seed(filepath.Join(data, "bonsai.db"), data, projects, tickets); err != nil {
			return err
		}
		if err := seedSchedules(filepath.Join(data, "bonsai.db"), projects, schedules); err != nil {
			return err
		}
		fmt.Printf("board: %d projects × %d tickets, none pickable, %d schedules, none due, seeded in %v\n",
			projects, tickets, schedules, time.Since(start).Round(time.Millisecond))
	}

	// A model server that counts what reaches it: an idle beat must not
	// call it at all.
	var requests atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		requests.Add(1)
		http.Error(w, `{"type":"error","error":{"type":"invalid_request_error","message":"bench"}}`, http.StatusBadRequest)
	}))
	defer srv.Close()
	env := append(os.Environ(), "BONSAI_DATA_DIR="+data,
		"ANTHROPIC_API_KEY=bench", "ANTHROPIC_BASE_URL="+srv.URL, "OPENAI_API_KEY=bench", "OPENAI_BASE_URL="+srv.URL)

	// The board's files settle (sqlite.StampSettle) before the first
	// beat, so that the idle beats that follow are the usual ones.
	time.Sleep(2100 * time.Millisecond)
	version, beat, err := medians(env, runs, bin, []string{"version"}, []string{"heartbeat"}, nil)
	if err != nil {
		return err
	}
	fmt.Printf("bonsai version:   median %v\n", version)
	fmt.Printf("bonsai heartbeat: median %v (idle, nothing written since the last beat)\n", beat)
	fmt.Printf("ratio: %.2f× (target ≤ 1.5×)\n", float64(beat)/float64(version))
	// Touching the database file stands for a write: the beat after it
	// reads the whole board.
	db := filepath.Join(data, "bonsai.db")
	touch := func() error { now := time.Now(); return os.Chtimes(db, now, now) }
	version, read, err := medians(env, runs, bin, []string{"version"}, []string{"heartbeat"}, touch)
	if err != nil {
		return err
	}
	fmt.Printf("bonsai heartbeat: median %v (idle, right after a write: reads the board)\n", read)
	fmt.Printf("ratio: %.2f×\n", float64(read)/float64(version))
	fmt.Printf("model requests: %d (target 0)\n", requests.Load())
	return nil
}

// seed writes a board with nothing to pick: tickets in BACKLOG, DONE,
// VERIFICATION, and IN_PROGRESS but blocked on a question.
func seed(path, repo string, projects, tickets int) error {
	ctx := context.Background()
	db, err := sqlite.Open(ctx, path)
	if err != nil {
		return err
	}
	defer db.Close()
	for p := range projects {
		slug := fmt.Sprintf("p%03d", p)
		if _, err := db.CreateProject(ctx, board.Project{Slug: slug, Name: slug, Repo: repo, DefaultBranch: "main", Active: true}); err != nil {
			return err
		}
		for n := range tickets {
			state := board.Backlog
			if n%10 < 3 {
				state = board.InProgress
			}
			t, err := db.CreateTicket(ctx, board.Ticket{ProjectSlug: slug, Title: fmt.Sprintf("Ticket %d", n),
				Description: "Something to do.", State: state, Priority: n % 5}, board.Human)
			if err != nil {
				return err
			}
			if err := park(ctx, db, t, n); err != nil {
				return err
			}
		}
	}
	return nil
}

// seedSchedules adds n schedules over the projects, all due a year from
// now or later, so a beat finds none due.
func seedSchedules(path string, projects, n int) error {
	if n == 0 {
		return nil
	}
	ctx := context.Background()
	db, err := sqlite.Open(ctx, path)
	if err != nil {
		return err
	}
	defer db.Close()
	next := time.Now().AddDate(1, 0, 0)
	for i := range n {
		_, err := db.CreateSchedule(ctx, board.Schedule{ProjectSlug: fmt.Sprintf("p%03d", i%projects), Name: fmt.Sprintf("s%d", i),
			Kind: "cron", Expr: "0 9 * * 1", TimeZone: "Europe/Berlin", Title: "Chore {date}", Priority: 2,
			NextFire: next.Add(time.Duration(i) * time.Minute)}, board.Human)
		if err != nil {
			return err
		}
	}
	return nil
}

// park makes an IN_PROGRESS ticket unpickable: mostly done or in review,
// some blocked on a question.
func park(ctx context.Context, db *sqlite.DB, t board.Ticket, n int) error {
	if t.State != board.InProgress {
		return nil
	}
	if n%10 == 2 {
		_, err := db.AddComment(ctx, t.Ref(), board.Comment{AuthorType: board.Agent, AuthorName: "bonsai",
			Kind: board.KindQuestion, Content: "Which API should this use?"})
		return err
	}
	moves := []board.MoveRequest{{To: board.Verification, Actor: board.Agent}}
	if n%10 == 0 {
		moves = append(moves, board.MoveRequest{To: board.Done, Actor: board.Human})
	}
	for _, m := range moves {
		if _, err := db.MoveTicket(ctx, t.Ref(), m, "bench"); err != nil {
			return err
		}
	}
	return nil
}

// medians runs bin with args a and with args b alternately, runs times
// each after one warm-up, and returns the median wall time of each.
// Alternating keeps a noisy machine from favouring one of them.
// before, when not nil, runs untimed before each run of b.
func medians(env []string, runs int, bin string, a, b []string, before func() error) (time.Duration, time.Duration, error) {
	var ta, tb []time.Duration
	for i := range runs + 1 {
		da, err := timeOnce(env, bin, a)
		if err != nil {
			return 0, 0, err
		}
		if before != nil {
			if err := before(); err != nil {
				return 0, 0, err
			}
		}
		db, err := timeOnce(env, bin, b)
		if err != nil {
			return 0, 0, err
		}
		if i > 0 {
			ta, tb = append(ta, da), append(tb, db)
		}
	}
	return median(ta), median(tb), nil
}

func timeOnce(env []string, bin string, args []string) (time.Duration, error) {
	cmd := exec.Command(bin, args...)
	cmd.Env = env
	start := time.Now()
	if out, err := cmd.CombinedOutput(); err != nil {
		return 0, fmt.Errorf("%s %v: %v\n%s", bin, args, err, out)
	}
	return time.Since(start), nil
}

func median(ts []time.Duration) time.Duration {
	slices.Sort(ts)
	return ts[len(ts)/2]
}

// copyFile copies the file src to a new executable file dst.
func copyFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o755)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}
