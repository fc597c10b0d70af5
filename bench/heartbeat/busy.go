package main

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/bonsai-run/bonsai/bench/internal/scripted"
	"github.com/bonsai-run/bonsai/internal/board"
)

// busyBench measures one beat that has work in every project: each of
// projects tickets is IN_PROGRESS in its own project and repository, and
// the fake model answers every request after latency, first with a bash
// call running command, then with a final text. It runs the beat once per
// concurrency limit and prints the beat's wall time and peak memory.
func busyBench(bin string, projects int, latency time.Duration, command string, limits []string) error {
	srv := httptest.NewServer(slowModel(latency, command))
	defer srv.Close()
	fmt.Printf("busy beat: %d projects, model latency %v per response, bash command %q\n", projects, latency, command)
	for _, limit := range limits {
		tmp, err := os.MkdirTemp("", "bonsai-busy-bench-")
		if err != nil {
			return err
		}
		d, rss, done, err := busyBeat(bin, tmp, srv.URL, projects, limit)
		os.RemoveAll(tmp)
		if err != nil {
			return err
		}
		fmt.Printf("  maxConcurrentAgents=%-5s beat %6.1fs  runs completed %d/%d  peak RSS %d MB\n",
			limit, d.Seconds(), done, projects, rss>>20)
	}
	return nil
}

func busyBeat(bin, tmp, modelURL string, projects int, limit string) (time.Duration, int64, int, error) {
	data := filepath.Join(tmp, "data")
	if err := os.MkdirAll(data, 0o755); err != nil {
		return 0, 0, 0, err
	}
	b := scripted.Board{Projects: projects, Tickets: 1, Ticket: board.Ticket{Title: "Work", Description: "Something to do."}}
	if err := b.Write(filepath.Join(data, "bonsai.db"), tmp); err != nil {
		return 0, 0, 0, err
	}
	env := append(os.Environ(), "BONSAI_DATA_DIR="+data, "ANTHROPIC_API_KEY=bench", "ANTHROPIC_BASE_URL="+modelURL)
	set := exec.Command(bin, "config", "set", "heartbeat.maxConcurrentAgents", limit)
	set.Env = env
	if out, err := set.CombinedOutput(); err != nil {
		return 0, 0, 0, fmt.Errorf("config set: %v\n%s", err, out)
	}
	cmd := exec.Command(bin, "heartbeat")
	cmd.Env = env
	start := time.Now()
	out, err := cmd.CombinedOutput()
	d := time.Since(start)
	if err != nil {
		return 0, 0, 0, fmt.Errorf("heartbeat: %v\n%s", err, out)
	}
	rss := peakRSS(cmd.ProcessState)
	done := len(regexp.MustCompile(`(?m)^p\d+#1 +implement +completed`).FindAll(out, -1))
	return d, rss, done, nil
}

// slowModel is an Anthropic Messages endpoint that waits latency, then
// streams a bash call running command to a conversation's first request
// and a final text to the next.
func slowModel(latency time.Duration, command string) http.Handler {
	return scripted.Model(latency, func(w http.ResponseWriter, messages int) {
		if messages == 1 {
			scripted.StreamTool(w, "bash", map[string]any{"command": command})
		} else {
			scripted.StreamText(w, "Done.")
		}
	})
}

func splitList(s string) []string {
	var out []string
	for _, f := range strings.Split(s, ",") {
		if f = strings.TrimSpace(f); f != "" {
			out = append(out, f)
		}
	}
	return out
}
