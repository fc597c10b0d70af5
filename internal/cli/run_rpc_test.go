package cli_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/bonsai-run/bonsai/internal/cli"
	"github.com/bonsai-run/bonsai/internal/llm"
	"github.com/bonsai-run/bonsai/internal/llm/llmtest"
)

// rpcClient drives `bonsai run --mode rpc` in process through pipes.
type rpcClient struct {
	t     *testing.T
	in    *io.PipeWriter
	lines chan map[string]any
	exit  chan int
	log   []string
}

func startRPC(t *testing.T, srv *llmtest.Server, args ...string) *rpcClient {
	t.Helper()
	dir := t.TempDir()
	work := filepath.Join(dir, "work")
	if err := os.MkdirAll(work, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("BONSAI_DATA_DIR", filepath.Join(dir, "data"))
	t.Setenv("HOME", dir)
	t.Setenv("ANTHROPIC_BASE_URL", srv.URL)
	t.Setenv("ANTHROPIC_API_KEY", "test-key")
	t.Setenv("OPENAI_BASE_URL", srv.URL+"/v1")
	t.Setenv("OPENAI_API_KEY", "test-key")
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	c := &rpcClient{t: t, in: inW, lines: make(chan map[string]any, 1000), exit: make(chan int, 1)}
	go func() {
		args := append([]string{"run", "--mode", "rpc", "--cwd", work}, args...)
		code := cli.Run(context.Background(), args, inR, outW, io.Discard)
		outW.Close()
		c.exit <- code
	}()
	go func() {
		sc := bufio.NewScanner(outR)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			var m map[string]any
			if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
				t.Errorf("output line is not JSON: %s", sc.Bytes())
				continue
			}
			c.lines <- m
		}
		close(c.lines)
	}()
	t.Cleanup(func() { inW.Close() })
	return c
}

func (c *rpcClient) send(cmd string) {
	c.t.Helper()
	if _, err := io.WriteString(c.in, cmd+"\n"); err != nil {
		c.t.Fatal(err)
	}
}

// until reads lines until one matches, returning it.
func (c *rpcClient) until(match func(map[string]any) bool) map[string]any {
	c.t.Helper()
	timeout := time.After(10 * time.Second)
	for {
		select {
		case m, ok := <-c.lines:
			if !ok {
				c.t.Fatalf("output ended; seen:\n%s", strings.Join(c.log, "\n"))
			}
			b, _ := json.Marshal(m)
			c.log = append(c.log, string(b))
			if match(m) {
				return m
			}
		case <-timeout:
			c.t.Fatalf("timed out; seen:\n%s", strings.Join(c.log, "\n"))
		}
	}
}

func (c *rpcClient) response(id string) map[string]any {
	c.t.Helper()
	return c.until(func(m map[string]any) bool { return m["type"] == "response" && m["id"] == id })
}

func (c *rpcClient) event(typ string) map[string]any {
	c.t.Helper()
	return c.until(func(m map[string]any) bool { return m["type"] == typ })
}

func textTurn(s string) llmtest.ServerTurn {
	return llmtest.ServerTurn{Message: llm.Message{Role: llm.RoleAssistant, Content: []llm.Part{llm.Text(s)}}}
}

func callTurn(calls ...llm.Part) llmtest.ServerTurn {
	return llmtest.ServerTurn{Message: llm.Message{Role: llm.RoleAssistant, Content: calls}}
}

func bashCall(id, cmd string) llm.Part {
	return llm.ToolCall(id, "bash", fmt.Appendf(nil, `{"command":%q}`, cmd))
}

func TestRPC_Commands(t *testing.T) {
	srv := llmtest.NewServer(t)
	c := startRPC(t, srv)

	c.send(`{"id":"s1","type":"get_state"}`)
	st := c.response("s1")
	data := st["data"].(map[string]any)
	if st["success"] != true || data["model"] != "anthropic/claude-sonnet-4-5" || data["running"] != false {
		t.Fatalf("get_state = %v", st)
	}
	firstFile := data["sessionFile"].(string)

	// Steering while a tool runs skips the rest of the turn.
	srv.Push(callTurn(bashCall("b1", "sleep 0.3"), llm.ToolCall("l1", "ls", []byte(`{}`))), textTurn("Steered."))
	c.send(`{"id":"p1","type":"prompt","message":"work"}`)
	if r := c.response("p1"); r["success"] != true {
		t.Fatalf("prompt = %v", r)
	}
	c.event("tool_execution_start")
	c.send(`{"id":"st","type":"steer","message":"stop that"}`)
	c.response("st")
	skipped := c.until(func(m map[string]any) bool { return m["type"] == "tool_execution_end" && m["toolCallId"] == "l1" })
	if !strings.Contains(fmt.Sprint(skipped["result"]), "Skipped due to queued user message.") {
		t.Errorf("ls result = %v", skipped["result"])
	}
	end := c.event("agent_end")
	if run := end["run"].(map[string]any); run["reason"] != "stop" {
		t.Errorf("agent_end = %v", end)
	}

	// A prompt while running is refused; a follow-up waits for the stop.
	srv.Push(callTurn(bashCall("b2", "sleep 0.3")), textTurn("First."), textTurn("Second."))
	c.send(`{"id":"p2","type":"prompt","message":"again"}`)
	c.response("p2")
	c.event("tool_execution_start")
	c.send(`{"id":"p3","type":"prompt","message":"busy?"}`)
	if r := c.response("p3"); r["success"] != false || !strings.Contains(r["error"].(string), "already running") {
		t.Errorf("prompt while running = %v", r)
	}
	c.send(`{"id":"f1","type":"follow_up","message":"and then?"}`)
	c.response("f1")
	end = c.event("agent_end")
	if run := end["run"].(map[string]any); run["turns"] != 3.0 || !strings.Contains(fmt.Sprint(run["final"]), "Second.") {
		t.Errorf("agent_end = %v", end)
	}

	// Abort kills the running command.
	srv.Push(callTurn(bashCall("b3", "sleep 30")))
	started := time.Now()
	c.send(`{"id":"p4","type":"prompt","message":"slow"}`)
	c.event("tool_execution_start")
	c.send(`{"id":"a1","type":"abort"}`)
	end = c.event("agent_end")
	if run := end["run"].(map[string]any); run["reason"] != "aborted" {
		t.Errorf("agent_end = %v", end)
	}
	if r := c.response("a1"); r["success"] != true {
		t.Errorf("abort = %v", r)
	}
	if d := time.Since(started); d > 10*time.Second {
		t.Errorf("abort took %v", d)
	}

	c.send(`{"id":"m1","type":"get_messages"}`)
	msgs := c.response("m1")["data"].(map[string]any)["messages"].([]any)
	if len(msgs) < 10 {
		t.Errorf("get_messages returned %d messages", len(msgs))
	}

	// set_model switches the wire format of the next request.
	srv.Push(textTurn("From GPT."))
	c.send(`{"id":"sm","type":"set_model","model":"openai/gpt-5","thinking":"low"}`)
	if r := c.response("sm"); r["success"] != true {
		t.Fatalf("set_model = %v", r)
	}
	c.send(`{"id":"p5","type":"prompt","message":"hi gpt"}`)
	c.event("agent_end")
	reqs := srv.Requests()
	if last := reqs[len(reqs)-1]; last.Path != "/v1/responses" {
		t.Errorf("after set_model the request went to %s", last.Path)
	}

	// fork and new_session switch files; errors are responses.
	c.send(`{"id":"fk","type":"fork"}`)
	fk := c.response("fk")
	forkFile, _ := fk["data"].(map[string]any)["sessionFile"].(string)
	if fk["success"] != true || forkFile == firstFile || forkFile == "" {
		t.Errorf("fork = %v", fk)
	}
	c.send(`{"id":"st2","type":"get_state"}`)
	if n := c.response("st2")["data"].(map[string]any)["messageCount"]; n != float64(len(msgs)+2) {
		t.Errorf("forked session has %v messages, want %d", n, len(msgs)+2)
	}
	c.send(`{"id":"ns","type":"new_session"}`)
	ns := c.response("ns")
	if ns["success"] != true || ns["data"].(map[string]any)["sessionFile"] == forkFile {
		t.Errorf("new_session = %v", ns)
	}
	c.send(`{"id":"cp","type":"compact"}`)
	if r := c.response("cp"); r["success"] != false || !strings.Contains(r["error"].(string), "nothing to compact") {
		t.Errorf("compact on an empty session = %v", r)
	}
	c.send(`{"id":7,"type":"teleport"}`)
	if r := c.until(func(m map[string]any) bool { return m["id"] == 7.0 }); r["error"] != `unknown command "teleport"` {
		t.Errorf("unknown command = %v", r)
	}
	c.send(`{not json`)
	if r := c.until(func(m map[string]any) bool { return m["type"] == "response" && m["id"] == nil }); r["success"] != false {
		t.Errorf("malformed command = %v", r)
	}
	c.in.Close()
	if code := <-c.exit; code != 0 {
		t.Errorf("exit code %d", code)
	}
}
