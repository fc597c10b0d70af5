package beater

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/config"
	"github.com/bonsai-run/bonsai/internal/heartbeat"
)

// childEnv makes the test binary a beat (`<test> heartbeat`) or, below
// it, a process the beat starts that reports whether it inherited the
// events pipe.
const childEnv = "BEATER_TEST_CHILD"

func TestMain(m *testing.M) {
	switch os.Getenv(childEnv) {
	case "beat":
		os.Exit(fakeBeat())
	case "grandchild":
		os.Exit(grandchild())
	}
	os.Exit(m.Run())
}

// fakeBeat is a beat with one run: it writes the run's start and end on
// the events pipe, and runs a child of its own that looks for the pipe.
func fakeBeat() int {
	pipe, _ := os.Readlink("/proc/self/fd/" + os.Getenv(EventsEnv))
	progress, closeEvents, err := OpenEvents(os.Getenv)
	if err != nil || progress == nil {
		fmt.Fprintln(os.Stderr, "no events pipe:", err)
		return 1
	}
	defer closeEvents()
	fmt.Println("a line of the beat's own output")
	p := heartbeat.Progress{Ticket: "demo#1", Task: board.TaskResearch, Model: "anthropic/m", RunID: "r1"}
	progress(p)
	p.Turns, p.Usage = 1, board.Usage{InputTokens: 1000, OutputTokens: 30}
	progress(p) // a model response: no event
	p.End = &heartbeat.RunReport{Ticket: "demo#1", Status: board.RunCompleted, Duration: 2 * time.Second}
	progress(p)
	gc := exec.Command(os.Args[0])
	gc.Env = append(os.Environ(), childEnv+"=grandchild", "BEATER_TEST_PIPE="+pipe)
	gc.Stdout, gc.Stderr = os.Stdout, os.Stderr
	if err := gc.Run(); err != nil {
		return 1
	}
	return 0
}

// grandchild prints each descriptor it holds that is the events pipe
// (Linux: /proc/self/fd): the pipe must not reach the beat's own
// children.
func grandchild() int {
	fmt.Printf("grandchild: %s=%q\n", EventsEnv, os.Getenv(EventsEnv))
	ents, _ := os.ReadDir("/proc/self/fd")
	for _, e := range ents {
		pipe := os.Getenv("BEATER_TEST_PIPE")
		if target, _ := os.Readlink("/proc/self/fd/" + e.Name()); pipe != "" && target == pipe {
			fmt.Println("grandchild: inherited descriptor " + e.Name())
		}
	}
	return 0
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestBeater_SaysRunsFromEventsAndSurvivesFailures: a beat's runs reach
// the person from its events, not from its printed output; the pipe does
// not leak to the beat's own children; a beat that cannot start is
// logged and the loop stops with its context.
func TestBeater_SaysRunsFromEventsAndSurvivesFailures(t *testing.T) {
	if os.Getenv(childEnv) != "" {
		t.Skip("a child process")
	}
	t.Setenv(childEnv, "beat")
	d := config.Dir(t.TempDir())
	if _, err := config.Init(d); err != nil {
		t.Fatal(err)
	}
	var log, out, say syncBuffer
	b := &Beater{Exe: os.Args[0], Dir: d, Log: slog.New(slog.NewTextHandler(&log, nil)), Out: &out, Say: &say}
	b.beat(context.Background())
	if !strings.Contains(log.String(), "msg=heartbeat ") {
		t.Fatalf("the beat did not succeed:\n%s\noutput:\n%s", log.String(), out.String())
	}
	lines := strings.Split(strings.TrimSpace(say.String()), "\n")
	if len(lines) != 2 || !strings.HasSuffix(lines[0], " demo#1 started: research with anthropic/m (run r1)") ||
		!strings.Contains(lines[1], " demo#1 ended: completed; 2s, 1 turn, 1030 tokens") {
		t.Errorf("said:\n%s\nwant a start and an end line", say.String())
	}
	if !strings.Contains(out.String(), "a line of the beat's own output") {
		t.Errorf("the beat's output is not logged:\n%s", out.String())
	}
	if strings.Contains(out.String(), "inherited descriptor") || !strings.Contains(out.String(), `grandchild: `+EventsEnv+`=""`) {
		t.Errorf("the events pipe reached the beat's child:\n%s", out.String())
	}
	if got := b.Interval(); got != 60*time.Second {
		t.Errorf("interval %v, want the config's 60s", got)
	}
	b.Exe = filepath.Join(t.TempDir(), "missing")
	b.beat(context.Background())
	if !strings.Contains(log.String(), `msg="heartbeat failed"`) {
		t.Fatalf("a failed beat was not logged:\n%s", log.String())
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	b.Run(ctx) // returns: its context ended
}

// TestReadEvents_BadLinesAreReported: a line that is not an event is
// handed to bad, and the events around it still arrive.
func TestReadEvents_BadLinesAreReported(t *testing.T) {
	t.Parallel()
	in := `{"kind":"run.started","progress":{"Ticket":"demo#1"}}` + "\nnot json\n" + `{"kind":"run.ended","progress":{"Ticket":"demo#1","End":{"ticket":"demo#1"}}}` + "\n"
	var kinds, bad []string
	readEvents(strings.NewReader(in), func(e Event) { kinds = append(kinds, e.Kind+" "+e.Progress.Ticket) },
		func(line string, err error) { bad = append(bad, line) })
	if strings.Join(kinds, ",") != "run.started demo#1,run.ended demo#1" || len(bad) != 1 || bad[0] != "not json" {
		t.Errorf("events %q, bad %q", kinds, bad)
	}
}
