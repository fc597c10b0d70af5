package main

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/bonsai-run/bonsai/bench/internal/scripted"
	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/store"
	"github.com/bonsai-run/bonsai/internal/store/sqlite"
)

// scaleBench reproduces the table of issue 28 ("Hundreds of sandboxed
// agents on one machine"): for each sandbox mode and each N, a board of
// N projects with one IN_PROGRESS ticket each, heartbeat.maxConcurrentAgents
// = N, and one `bonsai heartbeat --once` against a scripted model that
// answers every request after latency: turns bash calls running command,
// then a question (ticket_ask), which ends the run. It prints the beat's
// wall time, its own peak RSS and the peak of the process tree's summed
// RSS (the beat and every descendant, sampled every 100 ms), the CPU
// time of that tree (whole and divided by N: on a machine of C cores, N
// runs take at least N × the CPU a run ÷ C, whatever the model's
// latency), the beat's own share of it divided by N (its threads, not
// git, the sandboxes or the commands they ran), and the bound of one
// wave: (turns+1) × latency.
//
// With trace, each beat runs under strace and the bench prints its
// timeline: every program started and every model request and answer,
// then how many programs started, and how many of them were git's.
func scaleBench(bin string, ns []int, sandboxes []string, latency time.Duration, turns int, command string, trace bool) error {
	var tl *timeline
	model := scriptedModel(latency, turns, command)
	if trace {
		tl = &timeline{}
		model = tl.wrap(model)
	}
	srv := httptest.NewServer(model)
	defer srv.Close()
	bound := time.Duration(turns+1) * latency
	fmt.Printf("scale: model answers after %v; %d × bash %q, then a question; one wave's model time %v\n", latency, turns, command, bound)
	fmt.Printf("| N | limit | sandbox | wall | × bound | runs asked | beat RSS | tree RSS | tree PSS | tree CPU | CPU a run | beat CPU a run | load |\n|---|---|---|---|---|---|---|---|---|---|---|---|---|\n")
	for _, sb := range sandboxes {
		for _, n := range ns {
			r, err := scaleBeat(bin, srv.URL, n, sb, tl)
			if err != nil {
				return fmt.Errorf("N=%d sandbox %s: %w", n, sb, err)
			}
			fmt.Printf("| %d | %d | %s | %.2f s | %.1f× | %d/%d | %d MB | %d MB | %d MB | %.2f s | %.0f ms | %s | %s |\n", n, n, sb, r.wall.Seconds(),
				float64(r.wall)/float64(bound), r.asked, n, r.beatRSS>>20, r.treeRSS>>20, r.treePSS>>20,
				r.cpu.Seconds(), float64(r.cpu.Milliseconds())/float64(n), perRun(r.beatCPU, n), r.load)
		}
	}
	return nil
}

type scaleResult struct {
	wall time.Duration
	// cpu is the user and system time of the beat and of every
	// descendant it (or one of them) waited for: the whole tree's CPU,
	// which a loaded machine stretches far less than the wall time.
	cpu time.Duration
	// beatCPU is the beat's own share of cpu, without its children's
	// (git, the sandboxes, their commands); -1 when it could not be read.
	beatCPU          time.Duration
	beatRSS, treeRSS int64
	treePSS          int64
	asked            int
	load             string // the load average before the beat (1 minute)
}

func scaleBeat(bin, modelURL string, n int, sandbox string, tl *timeline) (scaleResult, error) {
	tmp, err := os.MkdirTemp("", "bonsai-scale-bench-")
	if err != nil {
		return scaleResult{}, err
	}
	defer os.RemoveAll(tmp)
	data := filepath.Join(tmp, "data")
	if err := os.MkdirAll(data, 0o755); err != nil {
		return scaleResult{}, err
	}
	mode := board.SandboxRequired
	if sandbox == "off" {
		mode = board.SandboxOff
	}
	b := scripted.Board{Projects: n, Tickets: 1, Project: board.Project{Agent: board.AgentSettings{Sandbox: mode}},
		Ticket: board.Ticket{Title: "Work", Plan: "1. Look around.", Description: "Something to do."}}
	if err := b.Write(filepath.Join(data, "bonsai.db"), tmp); err != nil {
		return scaleResult{}, err
	}
	env := append(os.Environ(), "BONSAI_DATA_DIR="+data, "HOME="+filepath.Join(tmp, "home"),
		"ANTHROPIC_API_KEY=bench", "ANTHROPIC_BASE_URL="+modelURL, "BONSAI_KEYRING=file")
	set := exec.Command(bin, "config", "set", "heartbeat.maxConcurrentAgents", strconv.Itoa(n))
	set.Env = env
	if out, err := set.CombinedOutput(); err != nil {
		return scaleResult{}, fmt.Errorf("config set: %v\n%s", err, out)
	}
	cmd := exec.Command(bin, "heartbeat", "--once")
	straceLog := filepath.Join(tmp, "strace.log")
	if tl != nil {
		cmd = exec.Command("strace", "-f", "-ttt", "-qq", "-e", "trace=execve", "-o", straceLog, bin, "heartbeat", "--once")
		tl.events = nil
	}
	cmd.Env = env
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	load := loadAverage()
	start := time.Now()
	if tl != nil {
		tl.start = start
	}
	if err := cmd.Start(); err != nil {
		return scaleResult{}, err
	}
	type peaks struct{ rss, pss int64 }
	peak := make(chan peaks, 1)
	stop := make(chan struct{})
	go func() {
		rss, pss := sampleTree(cmd.Process.Pid, stop)
		peak <- peaks{rss, pss}
	}()
	beatCPU, beatRead := selfCPU(cmd.Process.Pid)
	err = cmd.Wait()
	wall := time.Since(start)
	close(stop)
	tree := <-peak
	if err != nil {
		return scaleResult{}, fmt.Errorf("heartbeat: %v\n%s", err, out.String())
	}
	if tl != nil {
		tl.add("beat exited")
		if err := tl.readStrace(straceLog); err != nil {
			return scaleResult{}, err
		}
		tl.readStamps(out.String())
		tl.print()
	}
	asked, err := countAsked(filepath.Join(data, "bonsai.db"))
	if err != nil {
		return scaleResult{}, err
	}
	if asked < n {
		// Some runs ended before the question: the beat's report says
		// how, and its log why.
		fmt.Fprintf(os.Stderr, "N=%d: %d runs did not reach the question; the beat's report:\n%s", n, n-asked, notAsked(out.String()))
		if log, err := os.ReadFile(filepath.Join(data, "logs", "heartbeat.log")); err == nil {
			fmt.Fprintf(os.Stderr, "its log's warnings and errors:\n%s", warnings(string(log)))
		}
	}
	cpu := cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
	if !beatRead || tl != nil { // under strace, the process waited for is strace
		beatCPU = -1
	}
	return scaleResult{wall: wall, cpu: cpu, beatCPU: beatCPU, beatRSS: peakRSS(cmd.ProcessState), treeRSS: tree.rss, treePSS: tree.pss, asked: asked, load: load}, nil
}

// countAsked counts the tickets the beat left waiting for an answer: the
// runs that went the whole script.
func countAsked(db string) (int, error) {
	ctx := context.Background()
	s, err := sqlite.Open(ctx, db)
	if err != nil {
		return 0, err
	}
	defer s.Close()
	ts, err := s.Tickets(ctx, store.TicketFilter{})
	if err != nil {
		return 0, err
	}
	n := 0
	for _, t := range ts {
		if t.SubState == board.SubBlocked {
			n++
		}
	}
	return n, nil
}

// scriptedModel is an Anthropic Messages endpoint that waits latency,
// then streams, by the conversation's length, a bash call running
// command for the first turns answers, a ticket_ask call after them, and
// a final text to anything later.
func scriptedModel(latency time.Duration, turns int, command string) http.Handler {
	return scripted.Model(latency, func(w http.ResponseWriter, messages int) {
		k := messages / 2 // tool turns answered so far
		switch {
		case k < turns:
			scripted.StreamTool(w, "bash", map[string]any{"command": command})
		case k == turns:
			scripted.StreamTool(w, "ticket_ask", map[string]any{"question": "Which way should it go?"})
		default:
			scripted.StreamText(w, "Done.")
		}
	})
}

func splitInts(s string) []int {
	var out []int
	for _, f := range splitList(s) {
		n, err := strconv.Atoi(f)
		if err != nil || n < 1 {
			fmt.Fprintf(os.Stderr, "-n: %q is not a positive number\n", f)
			os.Exit(2)
		}
		out = append(out, n)
	}
	return out
}

// loadAverage is the first field of /proc/loadavg ("?" where there is
// none): the machine's load as the beat starts.
func loadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if f := strings.Fields(string(b)); err == nil && len(f) > 0 {
		return f[0]
	}
	return "?"
}

// notAsked returns the lines of a beat's report but those of the runs
// that completed (asking their question ends a run so).
func notAsked(report string) string {
	var b strings.Builder
	for _, line := range strings.Split(report, "\n") {
		if line != "" && !strings.Contains(line, " completed ") {
			b.WriteString(line + "\n")
		}
	}
	return b.String()
}

// warnings returns the lines of a heartbeat log at level WARN or ERROR.
func warnings(log string) string {
	var b strings.Builder
	for _, line := range strings.Split(log, "\n") {
		if strings.Contains(line, "level=WARN") || strings.Contains(line, "level=ERROR") {
			b.WriteString(line + "\n")
		}
	}
	return b.String()
}

// perRun is a CPU time divided among n runs, in milliseconds, "?" for
// one that could not be read.
func perRun(d time.Duration, n int) string {
	if d < 0 {
		return "?"
	}
	return fmt.Sprintf("%.0f ms", float64(d.Milliseconds())/float64(n))
}
