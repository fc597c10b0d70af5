package mcpclient

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/bonsai-run/bonsai/internal/executor/local"
	"github.com/bonsai-run/bonsai/internal/tool"
)

// warnings collects Warn calls.
type warnings struct {
	mu  sync.Mutex
	msg []string
}

func (w *warnings) add(s string) { w.mu.Lock(); w.msg = append(w.msg, s); w.mu.Unlock() }
func (w *warnings) all() string  { w.mu.Lock(); defer w.mu.Unlock(); return strings.Join(w.msg, "\n") }

func localExec(t *testing.T) *local.Executor {
	t.Helper()
	ex, err := local.New(t.TempDir(), local.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ex.Close() })
	return ex
}

func self(t *testing.T, mode string) Server {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return Server{Name: "self", Command: []string{exe}, Env: []string{serverEnv + "=" + mode}}
}

func find(t *testing.T, ts []tool.Tool, name string) tool.Tool {
	t.Helper()
	for _, x := range ts {
		if x.Name() == name {
			return x
		}
	}
	t.Fatalf("no tool %s among %d", name, len(ts))
	return nil
}

func call(t *testing.T, tl tool.Tool, args string) tool.Result {
	t.Helper()
	return tool.Call(context.Background(), tl, json.RawMessage(args), nil)
}

func TestStdio_ToolsCallsAndCrash(t *testing.T) {
	var w warnings
	c := Open(context.Background(), []Server{self(t, "badschema")}, Options{Exec: localExec(t), Warn: w.add})
	defer c.Close()
	var names []string
	for _, x := range c.Tools() {
		names = append(names, x.Name())
	}
	if strings.Join(names, " ") != "mcp__self__crash mcp__self__echo" {
		t.Fatalf("tools = %v", names)
	}
	if !strings.Contains(w.all(), `MCP server self: tool "broken" is left out: its input schema is not valid JSON Schema`) {
		t.Errorf("warnings = %q", w.all())
	}
	rep := c.Reports()[0]
	if rep.Tools != 2 || len(rep.Skipped) != 1 || rep.SchemaBytes == 0 || rep.Cached {
		t.Errorf("report = %+v", rep)
	}
	echo := find(t, c.Tools(), "mcp__self__echo")
	if ro, ok := echo.(tool.ReadOnly); !ok || !ro.ReadOnly() {
		t.Error("echo's readOnlyHint is lost")
	}
	if r := call(t, echo, `{"text":"hi"}`); r.IsError || r.Text() != "echo: hi" {
		t.Errorf("echo = %+v", r)
	}
	if r := call(t, echo, `{"text":3}`); !r.IsError || !strings.Contains(r.Text(), "Invalid arguments for mcp__self__echo") {
		t.Errorf("bad args = %+v", r)
	}
	// A crash is a tool error; the next call starts the server again.
	r := call(t, find(t, c.Tools(), "mcp__self__crash"), `{}`)
	if !r.IsError || !strings.Contains(r.Text(), "MCP server self") {
		t.Errorf("crash = %+v", r)
	}
	if r := call(t, echo, `{"text":"again"}`); r.IsError || r.Text() != "echo: again" {
		t.Errorf("echo after the crash = %+v", r)
	}
}

func TestStdio_LazyStartFromCacheAndStopAtClose(t *testing.T) {
	cache := t.TempDir()
	ex := localExec(t)
	c := Open(context.Background(), []Server{self(t, "plain")}, Options{Exec: ex, CacheDir: cache})
	c.Close()
	if _, err := os.Stat(filepath.Join(cache, "self.json")); err != nil {
		t.Fatal(err)
	}
	c = Open(context.Background(), []Server{self(t, "plain")}, Options{Exec: ex, CacheDir: cache})
	if !c.Reports()[0].Cached || c.Reports()[0].Tools != 2 {
		t.Fatalf("report = %+v", c.Reports()[0])
	}
	cn := c.conns[0]
	if cn.proc != nil || cn.starts != 0 {
		t.Fatal("the server started before any call")
	}
	if r := call(t, find(t, c.Tools(), "mcp__self__echo"), `{"text":"lazy"}`); r.Text() != "echo: lazy" {
		t.Fatalf("echo = %+v", r)
	}
	proc := cn.proc
	c.Close()
	select {
	case <-proc.done:
	default:
		t.Fatal("the server still runs after Close")
	}
	if r := call(t, find(t, c.Tools(), "mcp__self__echo"), `{"text":"late"}`); !r.IsError || !strings.Contains(r.Text(), "the run is over") {
		t.Errorf("call after Close = %+v", r)
	}
}

func TestStdio_BadServers(t *testing.T) {
	ex := localExec(t)
	for _, tt := range []struct {
		name string
		argv []string
		want string
	}{
		{"hangs", []string{"sleep", "60"}, "did not finish initialising within 300ms; check that sleep (on stdio) speaks MCP"},
		{"garbage", []string{"sh", "-c", "echo 'this is not JSON-RPC'; echo oops >&2; sleep 60"}, "could not start"},
		{"missing", []string{"no-such-mcp-server"}, "could not start"},
		{"exits", []string{"sh", "-c", "echo dying >&2; exit 7"}, "its stderr ends with: dying"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var w warnings
			c := Open(context.Background(), []Server{{Name: tt.name, Command: tt.argv}},
				Options{Exec: ex, InitTimeout: 300 * time.Millisecond, Warn: w.add})
			defer c.Close()
			if len(c.Tools()) != 0 {
				t.Errorf("tools = %d", len(c.Tools()))
			}
			rep := c.Reports()[0]
			if !strings.Contains(rep.Error, tt.want) || !strings.Contains(w.all(), "MCP server "+tt.name+": ") {
				t.Errorf("report error = %q, warnings %q; want %q", rep.Error, w.all(), tt.want)
			}
		})
	}
}

func TestHTTP_ServerWithHeaders(t *testing.T) {
	srv := newTestMCPServer(true)
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil)
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer s3cret" {
			http.Error(w, "no", http.StatusUnauthorized)
			return
		}
		h.ServeHTTP(w, r)
	}))
	defer hs.Close()
	var w warnings
	c := Open(context.Background(), []Server{{Name: "web", URL: hs.URL, Headers: map[string]string{"Authorization": "Bearer s3cret"}}},
		Options{Warn: w.add})
	defer c.Close()
	if r := call(t, find(t, c.Tools(), "mcp__web__echo"), `{"text":"over http"}`); r.IsError || r.Text() != "echo: over http" {
		t.Errorf("echo = %+v", r)
	}
	if !strings.Contains(w.all(), `tool "broken" is left out`) {
		t.Errorf("warnings = %q, reports %+v", w.all(), c.Reports())
	}
	bad := Open(context.Background(), []Server{{Name: "nokey", URL: hs.URL}}, Options{})
	defer bad.Close()
	if rep := bad.Reports()[0]; rep.Error == "" || len(bad.Tools()) != 0 {
		t.Errorf("without the header: %+v", rep)
	}
}

func TestToolName(t *testing.T) {
	for in, want := range map[string]string{
		"read_file":             "mcp__fs__read_file",
		"weird.name/x":          "mcp__fs__weird_name_x",
		strings.Repeat("a", 80): "mcp__fs__" + strings.Repeat("a", 64-len("mcp__fs__")),
	} {
		if got := ToolName("fs", in); got != want {
			t.Errorf("ToolName(%q) = %q, want %q", in, got, want)
		}
	}
}
