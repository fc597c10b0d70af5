package engine_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/engine"
	"github.com/bonsai-run/bonsai/internal/llm/llmtest"
)

// askThenRequest stands in for a Claude Code that calls ticket_ask over
// its MCP configuration and, as the real CLI does on a busy machine,
// sends its next model request before the run could stop it and before
// it printed the tool's result (held for its message's end), then fails
// on that request's answer.
const askThenRequest = `import json, sys, urllib.request
args = sys.argv
cfg = json.loads(args[args.index("--mcp-config") + 1])
srv = list(cfg["mcpServers"].values())[0]
sys.stdin.readline()
print(json.dumps({"type": "system", "subtype": "init", "session_id": "9b2b6b8e-1b1e-4c43-9a43-0d5c1d9b2d12"}), flush=True)
sid = None
def rpc(body):
    global sid
    h = dict(srv["headers"], **{"Content-Type": "application/json", "Accept": "application/json, text/event-stream"})
    if sid:
        h["Mcp-Session-Id"] = sid
    with urllib.request.urlopen(urllib.request.Request(srv["url"], json.dumps(body).encode(), h)) as r:
        sid = r.headers.get("Mcp-Session-Id") or sid
        return r.read().decode()
rpc({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "fake", "version": "1"}}})
rpc({"jsonrpc": "2.0", "method": "notifications/initialized"})
out = rpc({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "ticket_ask", "arguments": {"body": "Which database?"}}})
if "recorded" not in out:
    sys.exit("ticket_ask answered " + out)
import os
req = urllib.request.Request(os.environ["ANTHROPIC_BASE_URL"] + "/v1/messages", b'{"model":"m","max_tokens":10,"messages":[{"role":"user","content":"next"}]}',
    {"x-api-key": os.environ["ANTHROPIC_API_KEY"], "content-type": "application/json", "anthropic-version": "2023-06-01"})
try:
    urllib.request.urlopen(req)
    status = 200
except urllib.error.HTTPError as e:
    status = e.code
print(json.dumps({"type": "result", "subtype": "success", "is_error": True, "result": "API Error: %d" % status, "session_id": "9b2b6b8e-1b1e-4c43-9a43-0d5c1d9b2d12"}), flush=True)
sys.exit(1)
`

// TestClaudeAskBeforeItsNextRequest: a run whose ticket_ask returned is
// an asked run (the ticket stays blocked, not failed) even when the CLI
// sent its next model request before it was stopped, and that request
// never reaches the provider. CI saw engine_claude fail so on a loaded
// machine: "error: claude-code: API Error: 400 … no scripted turn left".
func TestClaudeAskBeforeItsNextRequest(t *testing.T) {
	t.Parallel()
	py, err := exec.LookPath("python3")
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("CI installs python3 (.ci/run)")
		}
		t.Skip("python3 is not installed")
	}
	srv := llmtest.NewServer(t)
	f := claudeFixture(t, srv)
	script := filepath.Join(t.TempDir(), "claude")
	body := "#!" + py + "\n" + askThenRequest
	if err := os.WriteFile(script, []byte(body), 0o755); err != nil {
		t.Fatal(err)
	}
	opts := f.opts
	opts.Locate = func(engine.Engine) (string, error) { return script, nil }
	r, err := engine.New(opts)
	if err != nil {
		t.Fatal(err)
	}
	out, err := r.RunAgent(context.Background(), f.job)
	if err != nil {
		t.Fatal(err)
	}
	if out.Status != board.RunCompleted || out.Error != "" {
		t.Errorf("outcome %+v: want a completed run (the agent asked)", out)
	}
	if len(f.calls) != 1 || !strings.HasPrefix(f.calls[0], "ticket_ask ") {
		t.Errorf("board calls %q", f.calls)
	}
	if n := len(srv.Requests()); n != 0 {
		t.Errorf("the provider got %d requests after the run ended", n)
	}
}
