package sqlite_test

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/store/sqlite"
)

// Environment of the helper processes TestConcurrentWriters starts.
const (
	envHelper = "BONSAI_STORE_TEST_HELPER" // the writer's name
	envDB     = "BONSAI_STORE_TEST_DB"
	envCount  = "BONSAI_STORE_TEST_COUNT"
)

// writeTickets opens the database at path, makes sure project "demo"
// exists and creates count tickets in it titled "<writer> <i>", commenting
// on every other one: the workload each concurrent writer runs.
func writeTickets(ctx context.Context, db *sqlite.DB, writer string, count int) error {
	_, err := db.CreateProject(ctx, board.Project{Slug: "demo", Name: "Demo", Repo: "/src/demo", DefaultBranch: "main"})
	if err != nil && board.ErrorCode(err) != board.ECONFLICT {
		return err
	}
	for i := range count {
		// A short pause, as between two CLI commands, lets the other
		// writers in; without it SQLite's busy handler lets whoever holds
		// the lock keep it for its whole burst.
		time.Sleep(time.Millisecond)
		tk, err := db.CreateTicket(ctx, board.Ticket{ProjectSlug: "demo", Title: fmt.Sprintf("%s %d", writer, i), Priority: 2}, board.Human)
		if err != nil {
			return fmt.Errorf("%s: ticket %d: %w", writer, i, err)
		}
		if i%2 == 0 {
			c := board.Comment{AuthorType: board.Human, AuthorName: writer, Kind: board.KindNote, Content: "note from " + writer}
			if _, err := db.AddComment(ctx, tk.Ref(), c); err != nil {
				return fmt.Errorf("%s: comment on %s: %w", writer, tk.Ref(), err)
			}
		}
	}
	return nil
}

// TestHelperProcess is a writer process of TestConcurrentWriters. It says
// "ready", waits for a line on stdin so that every writer starts at once,
// then opens the database and writes.
func TestHelperProcess(t *testing.T) {
	writer := os.Getenv(envHelper)
	if writer == "" {
		t.Skip("run by TestConcurrentWriters")
	}
	count, _ := strconv.Atoi(os.Getenv(envCount))
	fmt.Println("ready")
	if _, err := bufio.NewReader(os.Stdin).ReadString('\n'); err != nil {
		t.Fatal(err)
	}
	db, err := sqlite.Open(context.Background(), os.Getenv(envDB))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if err := writeTickets(context.Background(), db, writer, count); err != nil {
		t.Fatal(err)
	}
}

// TestConcurrentWriters writes tickets into one project of a new database
// from 8 goroutines and 2 other processes at once, all starting by opening
// (and so migrating) the database, and checks that nothing was lost: every
// ticket is there, numbers run 1..N without gap or duplicate, and each
// change wrote exactly one event.
func TestConcurrentWriters(t *testing.T) {
	// Not parallel: writers wait for each other within SQLite's busy
	// timeout, which CPU-heavy tests running alongside can exhaust.
	const (
		goroutines = 8
		processes  = 2
		perWriter  = 20
	)
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "bonsai.db")

	var writers []string
	var procs []*exec.Cmd
	var gos []*bufio.Writer
	outs := make([]*syncBuf, processes)
	for i := range processes {
		name := fmt.Sprintf("process-%d", i)
		writers = append(writers, name)
		cmd := exec.Command(os.Args[0], "-test.run=^TestHelperProcess$", "-test.count=1")
		cmd.Env = append(os.Environ(), envHelper+"="+name, envDB+"="+path, envCount+"="+strconv.Itoa(perWriter))
		cmd.Stderr = os.Stderr
		stdin, err := cmd.StdinPipe()
		if err != nil {
			t.Fatal(err)
		}
		stdout, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		procs = append(procs, cmd)
		t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
		line, err := bufio.NewReader(stdout).ReadString('\n')
		if err != nil || line != "ready\n" {
			t.Fatalf("%s said %q, %v; want ready", name, line, err)
		}
		outs[i] = &syncBuf{}
		go func() { // keep the rest: a failing child says why on stdout
			bufio.NewReader(stdout).WriteTo(outs[i])
		}()
		gos = append(gos, bufio.NewWriter(stdin))
	}

	start := make(chan struct{})
	errs := make(chan error, goroutines+processes)
	var wg sync.WaitGroup
	var db *sqlite.DB
	var openErr error
	var opened sync.WaitGroup
	opened.Add(1)
	go func() {
		defer opened.Done()
		<-start
		db, openErr = sqlite.Open(ctx, path)
	}()
	for i := range goroutines {
		name := fmt.Sprintf("goroutine-%d", i)
		writers = append(writers, name)
		wg.Add(1)
		go func() {
			defer wg.Done()
			opened.Wait()
			if openErr != nil {
				errs <- openErr
				return
			}
			errs <- writeTickets(ctx, db, name, perWriter)
		}()
	}
	for _, w := range gos {
		w.WriteString("go\n")
		w.Flush()
	}
	close(start)
	for i, cmd := range procs {
		if err := cmd.Wait(); err != nil {
			t.Errorf("process-%d: %v\n%s", i, err, outs[i].String())
		}
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Error(err)
		}
	}
	if openErr != nil {
		t.Fatal(openErr)
	}
	defer db.Close()
	if t.Failed() {
		t.FailNow()
	}

	total := len(writers) * perWriter
	ts, err := db.Tickets(ctx, storeFilter("demo"))
	if err != nil {
		t.Fatal(err)
	}
	if len(ts) != total {
		t.Fatalf("tickets = %d, want %d", len(ts), total)
	}
	titles := map[string]int{}
	switches, prev := 0, ""
	for i, tk := range ts {
		if w, _, _ := strings.Cut(tk.Title, " "); w != prev {
			switches, prev = switches+1, w
		}
		if tk.Number != i+1 {
			t.Fatalf("ticket %d of the list has number %d; numbers must run 1..%d without gaps", i, tk.Number, total)
		}
		titles[tk.Title]++
	}
	for _, w := range writers {
		for i := range perWriter {
			if n := titles[fmt.Sprintf("%s %d", w, i)]; n != 1 {
				t.Errorf("ticket %q stored %d times, want once", fmt.Sprintf("%s %d", w, i), n)
			}
		}
	}

	// How interleaved the writers were: 10 would mean one after another.
	t.Logf("the writer changes %d times along the %d ticket numbers", switches, total)

	es, err := db.Events(ctx, 0, 100000)
	if err != nil {
		t.Fatal(err)
	}
	count := map[board.EventType]int{}
	var last int64
	for _, e := range es {
		if e.ID <= last {
			t.Fatalf("event IDs not increasing: %d after %d", e.ID, last)
		}
		last = e.ID
		count[e.Type]++
	}
	want := map[board.EventType]int{
		board.EventProjectCreated: 1,
		board.EventTicketCreated:  total,
		board.EventCommentAdded:   len(writers) * ((perWriter + 1) / 2),
	}
	if fmt.Sprint(count) != fmt.Sprint(want) {
		t.Errorf("events by type = %v, want %v", count, want)
	}
}

// syncBuf is a bytes.Buffer safe for one writer and one reader.
type syncBuf struct {
	mu sync.Mutex
	b  strings.Builder
}

func (s *syncBuf) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuf) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
