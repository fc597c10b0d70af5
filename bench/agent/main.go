// Command agent measures `bonsai run` against the llmtest fake model
// server answering instantly (issue 4, targets in parentheses):
//
//   - `bonsai run -p hello`: wall time (≤ 2× the minimal Go program doing
//     the same HTTP round trip and transcript fsync) and peak RSS (≤ 30 MB);
//
//   - the bytes of its first request with the default tools (≤ 6 KB);
//
//   - a 50-turn session in which each turn reads a 2,000-line file: time
//     per turn above the minimal loop doing the same HTTP and fsync work
//     (≤ 1 ms, not growing with context size) and peak RSS (≤ 50 MB).
//
//   - with -sandbox, the same session of `bash true` turns on the host and
//     in the sandbox (issue 12: the sandbox's cost per turn).
//
//     go run ./bench/agent [-runs 20] [-sessions 3] [-sandbox]
package main

import (
	"bufio"
	"flag"
	"fmt"
	"log"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/bonsai-run/bonsai/internal/llm"
	"github.com/bonsai-run/bonsai/internal/llm/llmtest"
)

// benchTB gives llmtest.NewServer the one testing.TB method it uses.
type benchTB struct {
	testing.TB
	cleanups []func()
}

func (b *benchTB) Cleanup(f func()) { b.cleanups = append(b.cleanups, f) }

func main() {
	runs := flag.Int("runs", 20, "timed runs of bonsai run -p hello and of the minimal program")
	sessions := flag.Int("sessions", 3, "timed 50-turn sessions of each")
	turns := flag.Int("turns", 50, "tool turns per session")
	sandboxed := flag.Bool("sandbox", false, "also time sessions of `bash true` turns on the host and in the sandbox (needs bwrap)")
	flag.Parse()
	if err := run(*runs, *sessions, *turns, *sandboxed); err != nil {
		log.Fatal(err)
	}
}

type env struct {
	tmp, bonsai, minimal, work string
	srv                        *llmtest.Server
}

func run(runs, sessions, turns int, sandboxed bool) error {
	tmp, err := os.MkdirTemp("", "bonsai-bench-agent-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	e := &env{tmp: tmp, bonsai: filepath.Join(tmp, "bonsai"), minimal: filepath.Join(tmp, "minimal"), work: filepath.Join(tmp, "work")}
	for bin, pkg := range map[string]string{e.bonsai: "./cmd/bonsai", e.minimal: "./bench/agent/minimal"} {
		build := exec.Command("go", "build", "-o", bin, pkg)
		build.Stdout, build.Stderr = os.Stdout, os.Stderr
		if err := build.Run(); err != nil {
			return fmt.Errorf("build %s: %w", pkg, err)
		}
	}
	if err := os.MkdirAll(e.work, 0o755); err != nil {
		return err
	}
	var file strings.Builder
	for i := range 2000 {
		fmt.Fprintf(&file, "line %04d abcde\n", i+1)
	}
	if err := os.WriteFile(filepath.Join(e.work, "big.txt"), []byte(file.String()), 0o644); err != nil {
		return err
	}
	tb := &benchTB{}
	e.srv = llmtest.NewServer(tb)
	defer func() {
		for _, f := range tb.cleanups {
			f()
		}
	}()
	fmt.Printf("machine: %d CPUs; fake server answers instantly\n\n", runtimeCPUs())
	if err := e.hello(runs); err != nil {
		return err
	}
	if err := e.session(sessions, turns); err != nil {
		return err
	}
	if !sandboxed {
		return nil
	}
	fmt.Println()
	return e.sandboxSession(sessions, turns)
}

// measurement is one process run.
type measurement struct {
	wall  time.Duration
	rssKB int64
	cpu   time.Duration   // user + system CPU of the process (and its children)
	lines []time.Duration // when each stdout line arrived
}

// exec runs a command and times it. Its peak RSS is read through
// /usr/bin/time: the rusage of a child of this (large) process would
// report the parent's size at fork.
func (e *env) exec(name string, args ...string) (measurement, error) {
	args = append([]string{"-f", "maxrss %M", name}, args...)
	cmd := exec.Command("/usr/bin/time", args...)
	cmd.Dir = e.work
	cmd.Env = append(os.Environ(), "BONSAI_DATA_DIR="+filepath.Join(e.tmp, "data"),
		"ANTHROPIC_BASE_URL="+e.srv.URL, "ANTHROPIC_API_KEY=test-key", "HOME="+e.tmp)
	out, err := cmd.StdoutPipe()
	if err != nil {
		return measurement{}, err
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return measurement{}, err
	}
	var m measurement
	sc := bufio.NewScanner(out)
	sc.Buffer(make([]byte, 16<<20), 16<<20)
	for sc.Scan() {
		m.lines = append(m.lines, time.Since(start))
		if strings.Contains(sc.Text(), `"type":"turn_start"`) || strings.HasPrefix(sc.Text(), "turn ") {
			m.lines[len(m.lines)-1] = -m.lines[len(m.lines)-1] // mark turn lines
		}
	}
	if err := cmd.Wait(); err != nil {
		return m, fmt.Errorf("%s: %w\n%s", name, err, stderr.String())
	}
	m.wall = time.Since(start)
	// wait4's usage of /usr/bin/time includes the command it waited for.
	m.cpu = cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
	if i := strings.LastIndex(stderr.String(), "maxrss "); i >= 0 {
		fmt.Sscanf(stderr.String()[i:], "maxrss %d", &m.rssKB)
	}
	return m, nil
}

func text(s string) llmtest.ServerTurn {
	return llmtest.ServerTurn{Message: llm.Message{Role: llm.RoleAssistant, Content: []llm.Part{llm.Text(s)}}}
}

func (e *env) hello(runs int) error {
	var vw []time.Duration
	var vrss int64
	for range runs {
		v, err := e.exec(e.bonsai, "version")
		if err != nil {
			return err
		}
		vw, vrss = append(vw, v.wall), max(vrss, v.rssKB)
	}
	var bw, mw []time.Duration
	var brss, mrss int64
	first := len(e.srv.Requests())
	for i := range runs + 1 {
		e.srv.Push(text("Hello! How can I help?"))
		b, err := e.exec(e.bonsai, "run", "-p", "hello")
		if err != nil {
			return err
		}
		e.srv.Push(text("Hello! How can I help?"))
		m, err := e.exec(e.minimal, "-url", e.srv.URL, "-transcript", filepath.Join(e.tmp, fmt.Sprintf("min%d.jsonl", i)))
		if err != nil {
			return err
		}
		if i == 0 {
			continue // warm the page cache
		}
		bw, mw = append(bw, b.wall), append(mw, m.wall)
		brss, mrss = max(brss, b.rssKB), max(mrss, m.rssKB)
	}
	reqBytes := len(e.srv.Requests()[first].Raw)
	fmt.Printf("bonsai run -p hello (%d runs)\n", runs)
	fmt.Printf("  bonsai   median %6.1f ms  p90 %6.1f ms  peak RSS %5.1f MB\n", ms(median(bw)), ms(p90(bw)), mb(brss))
	fmt.Printf("  minimal  median %6.1f ms  p90 %6.1f ms  peak RSS %5.1f MB\n", ms(median(mw)), ms(p90(mw)), mb(mrss))
	fmt.Printf("  bonsai version (start-up floor) median %6.1f ms  peak RSS %5.1f MB\n", ms(median(vw)), mb(vrss))
	fmt.Printf("  ratio    %.2f× (target ≤ 2×); RSS target ≤ 30 MB\n", float64(median(bw))/float64(median(mw)))
	fmt.Printf("  first request: %d bytes (target ≤ 6 KB = 6144)\n\n", reqBytes)
	return nil
}

func (e *env) session(sessions, turns int) error {
	push := func() {
		for i := range turns {
			id := fmt.Sprintf("toolu_%02d", i)
			// A small reported context keeps compaction out of the measurement.
			e.srv.Push(llmtest.ServerTurn{Message: llm.Message{Role: llm.RoleAssistant,
				Content: []llm.Part{llm.ToolCall(id, "read", []byte(`{"path":"big.txt"}`))},
				Usage:   &llm.Usage{Input: 1000, Output: 10}}})
		}
		e.srv.Push(text("Read it fifty times."))
	}
	var bw, mw, bcpu, mcpu []time.Duration
	var brss, mrss int64
	var bTurns, mTurns [][]time.Duration
	for i := range sessions {
		push()
		b, err := e.exec(e.bonsai, "run", "--mode", "json", "read big.txt again and again")
		if err != nil {
			return err
		}
		push()
		m, err := e.exec(e.minimal, "-url", e.srv.URL, "-transcript", filepath.Join(e.tmp, fmt.Sprintf("sess%d.jsonl", i)),
			"-turns", fmt.Sprint(turns), "-file", filepath.Join(e.work, "big.txt"))
		if err != nil {
			return err
		}
		bw, mw = append(bw, b.wall), append(mw, m.wall)
		bcpu, mcpu = append(bcpu, b.cpu), append(mcpu, m.cpu)
		brss, mrss = max(brss, b.rssKB), max(mrss, m.rssKB)
		bTurns, mTurns = append(bTurns, turnTimes(b.lines)), append(mTurns, turnTimes(m.lines))
	}
	bm, mm := median(bw), median(mw)
	fmt.Printf("%d-turn session, each turn reads a 2,000-line file (%d sessions)\n", turns, sessions)
	fmt.Printf("  bonsai   median %7.1f ms  peak RSS %5.1f MB (target ≤ 50 MB)\n", ms(bm), mb(brss))
	fmt.Printf("  minimal  median %7.1f ms  peak RSS %5.1f MB\n", ms(mm), mb(mrss))
	fmt.Printf("  overhead per turn %.2f ms (target ≤ 1 ms)\n", ms(bm-mm)/float64(turns+1))
	// CPU is what the process itself spends, without the fake server's
	// decoding of each request, which dominates the later turns' wall time.
	fmt.Printf("  CPU per turn (median session): bonsai %.2f ms, minimal %.2f ms\n",
		ms(median(bcpu))/float64(turns+1), ms(median(mcpu))/float64(turns+1))
	// Per-turn durations early and late in the session, medians over sessions.
	early, late := func(ts [][]time.Duration) time.Duration { return window(ts, 1, 11) }, func(ts [][]time.Duration) time.Duration { return window(ts, turns-10, turns) }
	fmt.Printf("  per turn, turns 2-11:  bonsai %.2f ms, minimal %.2f ms, overhead %.2f ms\n", ms(early(bTurns)), ms(early(mTurns)), ms(early(bTurns)-early(mTurns)))
	fmt.Printf("  per turn, last 10:     bonsai %.2f ms, minimal %.2f ms, overhead %.2f ms\n", ms(late(bTurns)), ms(late(mTurns)), ms(late(bTurns)-late(mTurns)))
	return nil
}

// turnTimes returns the duration of each turn from the marked lines.
func turnTimes(lines []time.Duration) []time.Duration {
	var marks []time.Duration
	for _, l := range lines {
		if l < 0 {
			marks = append(marks, -l)
		}
	}
	var d []time.Duration
	for i := 1; i < len(marks); i++ {
		d = append(d, marks[i]-marks[i-1])
	}
	return d
}

// window returns the median over sessions of the mean turn time of turns [a, b).
func window(ts [][]time.Duration, a, b int) time.Duration {
	var means []time.Duration
	for _, t := range ts {
		a, b := max(a, 0), min(b, len(t))
		if b <= a {
			continue
		}
		var sum time.Duration
		for _, d := range t[a:b] {
			sum += d
		}
		means = append(means, sum/time.Duration(b-a))
	}
	return median(means)
}

func median(d []time.Duration) time.Duration {
	if len(d) == 0 {
		return 0
	}
	s := slices.Clone(d)
	slices.Sort(s)
	return s[len(s)/2]
}

func p90(d []time.Duration) time.Duration {
	s := slices.Clone(d)
	slices.Sort(s)
	return s[len(s)*9/10]
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
func mb(kb int64) float64        { return float64(kb) / 1024 }
