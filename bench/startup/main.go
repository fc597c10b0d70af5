// Command startup measures `bonsai status` as a whole process on a large
// board against the start-up floor of `bonsai version`.
//
// Target (issue 2): status on 100 projects × 1,000 tickets takes at most
// 1.5× the wall time of `bonsai version`.
//
//	go run ./bench/startup [-projects 100] [-tickets 1000] [-runs 30] [-data DIR]
//
// With -breakdown -data DIR it times instead each store call of a status
// load, each run in a fresh process, and prints the medians.
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"time"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/store/sqlite"
)

func main() {
	projects := flag.Int("projects", 100, "projects on the board")
	tickets := flag.Int("tickets", 1000, "tickets per project")
	runs := flag.Int("runs", 30, "timed runs of each command")
	data := flag.String("data", "", "data directory to use and keep (filled only when it has no bonsai.db)")
	steps := flag.Bool("breakdown", false, "instead, time each step of a status load in fresh processes (needs -data)")
	flag.Parse()
	if path := os.Getenv(breakdownEnv); path != "" {
		if err := breakdownChild(path); err != nil {
			log.Fatal(err)
		}
		return
	}
	if *steps {
		if err := breakdown(*data, *runs); err != nil {
			log.Fatal(err)
		}
		return
	}
	if err := run(*projects, *tickets, *runs, *data); err != nil {
		log.Fatal(err)
	}
}

func run(projects, tickets, runs int, data string) error {
	tmp, err := os.MkdirTemp("", "bonsai-bench-")
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
		if err := fill(filepath.Join(data, "bonsai.db"), data, projects, tickets); err != nil {
			return err
		}
		fmt.Printf("board: %d projects × %d tickets, written in %v\n", projects, tickets, time.Since(start).Round(time.Millisecond))
	}

	env := append(os.Environ(), "BONSAI_DATA_DIR="+data)
	version, status, err := timeBoth(env, runs, bin)
	if err != nil {
		return err
	}
	fmt.Printf("bonsai version: median %v\n", version)
	fmt.Printf("bonsai status:  median %v\n", status)
	fmt.Printf("ratio: %.2f× (target ≤ 1.5×)\n", float64(status)/float64(version))
	return nil
}

// fill writes a realistic board: most tickets done or in the backlog, a
// few in flight, some with comments.
func fill(path, repo string, projects, tickets int) error {
	ctx := context.Background()
	db, err := sqlite.Open(ctx, path)
	if err != nil {
		return err
	}
	defer db.Close()
	rng := rand.New(rand.NewPCG(1, 2))
	states := []board.State{board.Done, board.Done, board.Done, board.Done, board.Done, board.Done,
		board.Backlog, board.Backlog, board.Research, board.InProgress}
	for p := range projects {
		slug := fmt.Sprintf("p%03d", p)
		if _, err := db.CreateProject(ctx, board.Project{Slug: slug, Name: slug, Repo: repo, DefaultBranch: "main", Active: true}); err != nil {
			return err
		}
		for n := range tickets {
			st := states[rng.IntN(len(states))]
			create := st
			if st != board.Backlog && st != board.Research && st != board.InProgress {
				create = board.InProgress
			}
			t, err := db.CreateTicket(ctx, board.Ticket{ProjectSlug: slug, Title: fmt.Sprintf("Ticket %d", n),
				Description: "Some description of the work.", Priority: rng.IntN(5), State: create}, board.Human)
			if err != nil {
				return err
			}
			if st == board.Done {
				if err := finish(ctx, db, t); err != nil {
					return err
				}
			}
			if rng.IntN(20) == 0 {
				if _, err := db.AddComment(ctx, t.Ref(), board.Comment{AuthorType: board.Human, AuthorName: "bench", Kind: board.KindNote, Content: "A question."}); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// finish walks a ticket through VERIFICATION to DONE.
func finish(ctx context.Context, db *sqlite.DB, t board.Ticket) error {
	if _, err := db.MoveTicket(ctx, t.Ref(), board.MoveRequest{To: board.Verification, Actor: board.Agent}, "agent"); err != nil {
		return err
	}
	_, err := db.MoveTicket(ctx, t.Ref(), board.MoveRequest{To: board.Done, Actor: board.Human}, "bench")
	return err
}

// timeBoth runs `version` and `status` alternately, so that load on the
// machine falls on both alike, and returns their median wall times.
func timeBoth(env []string, runs int, bin string) (version, status time.Duration, err error) {
	var vs, ss []time.Duration
	for range runs {
		d, err := timeOnce(env, bin, "version")
		if err != nil {
			return 0, 0, err
		}
		vs = append(vs, d)
		if d, err = timeOnce(env, bin, "status"); err != nil {
			return 0, 0, err
		}
		ss = append(ss, d)
	}
	return median(vs), median(ss), nil
}

func timeOnce(env []string, name string, args ...string) (time.Duration, error) {
	cmd := exec.Command(name, args...)
	cmd.Env = env
	start := time.Now()
	if out, err := cmd.CombinedOutput(); err != nil {
		return 0, fmt.Errorf("%s %v: %v\n%s", name, args, err, out)
	}
	return time.Since(start), nil
}

func median(ds []time.Duration) time.Duration {
	slices.Sort(ds)
	return ds[len(ds)/2]
}
