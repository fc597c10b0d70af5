// Command seed writes a large, realistic board into a new database with
// storebench.Seed, for benchmarks that need one, e.g. timing `bonsai status`:
//
//	go run ./bench/store/seed -o /tmp/big/bonsai.db [-projects 100] [-tickets 1000]
//	go run ./bench/startup -data /tmp/big
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"time"

	storebench "github.com/bonsai-run/bonsai/bench/store"
)

func main() {
	out := flag.String("o", "", "database file to create (must not exist)")
	projects := flag.Int("projects", 100, "projects on the board")
	tickets := flag.Int("tickets", 1000, "tickets per project")
	seed := flag.Uint64("seed", 1, "random seed")
	flag.Parse()
	if *out == "" {
		log.Fatal("seed: -o is required")
	}
	if _, err := os.Stat(*out); err == nil {
		log.Fatalf("seed: %s exists; seed writes a new database", *out)
	}
	if err := os.MkdirAll(filepath.Dir(*out), 0o755); err != nil {
		log.Fatal(err)
	}
	start := time.Now()
	b := storebench.Board{Projects: *projects, Tickets: *tickets, Seed: *seed}
	if err := storebench.Seed(context.Background(), *out, b); err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%s: %d projects × %d tickets in %v\n", *out, *projects, *tickets, time.Since(start).Round(time.Millisecond))
}
