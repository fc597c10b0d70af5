package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/store/sqlite"
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
	if err := seedBusy(filepath.Join(data, "bonsai.db"), tmp, projects); err != nil {
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

// seedBusy creates projects projects, each with its own repository and one
// IN_PROGRESS ticket.
func seedBusy(db, dir string, projects int) error {
	ctx := context.Background()
	s, err := sqlite.Open(ctx, db)
	if err != nil {
		return err
	}
	defer s.Close()
	for p := range projects {
		slug := fmt.Sprintf("p%03d", p)
		repo := filepath.Join(dir, "repos", slug)
		if err := gitRepo(repo); err != nil {
			return err
		}
		if _, err := s.CreateProject(ctx, board.Project{Slug: slug, Name: slug, Repo: repo, DefaultBranch: "main", Active: true}); err != nil {
			return err
		}
		if _, err := s.CreateTicket(ctx, board.Ticket{ProjectSlug: slug, Title: "Work",
			Description: "Something to do.", State: board.InProgress, Priority: 2}, board.Human); err != nil {
			return err
		}
	}
	return nil
}

func gitRepo(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "README.md"), []byte("# bench\n"), 0o644); err != nil {
		return err
	}
	for _, args := range [][]string{{"init", "-q", "-b", "main"}, {"add", "."}, {"commit", "-q", "-m", "initial"}} {
		c := exec.Command("git", args...)
		c.Dir = dir
		c.Env = append(os.Environ(), "GIT_AUTHOR_NAME=bench", "GIT_AUTHOR_EMAIL=b@example.com",
			"GIT_COMMITTER_NAME=bench", "GIT_COMMITTER_EMAIL=b@example.com")
		if out, err := c.CombinedOutput(); err != nil {
			return fmt.Errorf("git %v: %v\n%s", args, err, out)
		}
	}
	return nil
}

// slowModel is an Anthropic Messages endpoint that waits latency, then
// streams a bash call running command to a conversation's first request
// and a final text to the next.
func slowModel(latency time.Duration, command string) http.Handler {
	return messagesModel(latency, func(w http.ResponseWriter, messages int) {
		if messages == 1 {
			streamTool(w, "bash", map[string]any{"command": command})
		} else {
			streamText(w, "Done.")
		}
	})
}

// messagesModel is an Anthropic Messages endpoint that waits latency,
// then has answer stream the reply to a conversation of messages
// messages; anything else is a 400 in the API's error shape.
func messagesModel(latency time.Duration, answer func(w http.ResponseWriter, messages int)) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Messages []json.RawMessage `json:"messages"`
		}
		body, _ := io.ReadAll(r.Body)
		if err := json.Unmarshal(body, &req); err != nil || r.URL.Path != "/v1/messages" {
			http.Error(w, `{"type":"error","error":{"type":"invalid_request_error","message":"bench"}}`, http.StatusBadRequest)
			return
		}
		select {
		case <-time.After(latency):
		case <-r.Context().Done():
			return
		}
		answer(w, len(req.Messages))
	})
}

// streamTool streams an assistant message that calls tool name with
// args, as the Messages API does.
func streamTool(w http.ResponseWriter, name string, args any) {
	type m = map[string]any
	raw, _ := json.Marshal(args)
	streamMessage(w, "tool_use",
		m{"type": "tool_use", "id": "toolu_bench", "name": name, "input": m{}},
		m{"type": "input_json_delta", "partial_json": string(raw)})
}

// streamText streams an assistant message saying text.
func streamText(w http.ResponseWriter, text string) {
	type m = map[string]any
	streamMessage(w, "end_turn", m{"type": "text", "text": ""}, m{"type": "text_delta", "text": text})
}

// streamMessage streams one message of one content block, started as
// block and filled by delta, ending with stop.
func streamMessage(w http.ResponseWriter, stop string, block, delta map[string]any) {
	w.Header().Set("Content-Type", "text/event-stream")
	ev := func(name string, v any) {
		b, _ := json.Marshal(v)
		fmt.Fprintf(w, "event: %s\ndata: %s\n\n", name, b)
	}
	type m = map[string]any
	ev("message_start", m{"type": "message_start", "message": m{"id": "msg_bench", "type": "message", "role": "assistant",
		"model": "bench", "content": []any{}, "stop_reason": nil, "usage": m{"input_tokens": 1000, "output_tokens": 1}}})
	ev("content_block_start", m{"type": "content_block_start", "index": 0, "content_block": block})
	ev("content_block_delta", m{"type": "content_block_delta", "index": 0, "delta": delta})
	ev("content_block_stop", m{"type": "content_block_stop", "index": 0})
	ev("message_delta", m{"type": "message_delta", "delta": m{"stop_reason": stop}, "usage": m{"output_tokens": 20}})
	ev("message_stop", m{"type": "message_stop"})
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
