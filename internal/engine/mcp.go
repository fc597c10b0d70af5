package engine

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/hex"
	"encoding/json"
	"errors"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/bonsai-run/bonsai/internal/boardmcp"
	"github.com/bonsai-run/bonsai/internal/llm"
	"github.com/bonsai-run/bonsai/internal/tool"
)

// boardServer serves a run's ticket tools over streamable HTTP on a
// loopback port, behind a bearer token made for the run; it stops with
// the run. The engine's process reaches it; nothing else knows the token.
type boardServer struct {
	endpoint MCPEndpoint
	srv      *http.Server
	// terminate is set when a tool result asked to end the run (a
	// ticket_ask waiting for a person).
	terminate atomic.Bool
	// started, when set, shows a command the hook allowed as running
	// (an engine whose output names a call only once it finished).
	started atomic.Pointer[func(llm.Part)]
	// ran is the command of the last call the command hook let run:
	// once a sandbox limit is met the hook refuses every call, so it is
	// the command that met it, whenever the CLI's stream shows the
	// next call.
	ran atomic.Pointer[string]
}

// serveBoard starts the board server of a run's tools; judge, when not
// nil, answers the engine's command hook (hook.go) on the same server.
func serveBoard(tools []tool.Tool, judge judges) (*boardServer, error) {
	b := &boardServer{}
	wrapped := make([]tool.Tool, len(tools))
	for i, t := range tools {
		wrapped[i] = terminating{Tool: t, flag: &b.terminate}
	}
	s, err := boardmcp.NewServer(wrapped, boardmcp.Options{Name: "bonsai"})
	if err != nil {
		return nil, err
	}
	var tok [32]byte
	_, _ = rand.Read(tok[:])
	token := hex.EncodeToString(tok[:])
	mux := http.NewServeMux()
	mux.Handle("/mcp", mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, nil))
	if judge != nil {
		mux.Handle("POST "+hookPath, b.preToolUse(judge))
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	// A sandbox behind the proxy reaches the server as boardName (see
	// forward.go): that Host, on this port, is this server, which the MCP
	// handler's DNS rebinding check (a loopback server named otherwise)
	// must accept; any other Host is still refused.
	relayed := net.JoinHostPort(boardName, strconv.Itoa(ln.Addr().(*net.TCPAddr).Port))
	auth := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if subtle.ConstantTimeCompare([]byte(r.Header.Get("Authorization")), []byte("Bearer "+token)) != 1 {
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return
		}
		if strings.EqualFold(r.Host, relayed) {
			r.Host = ln.Addr().String()
		}
		mux.ServeHTTP(w, r)
	})
	b.srv = &http.Server{Handler: auth, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = b.srv.Serve(ln) }()
	b.endpoint = MCPEndpoint{Name: "bonsai", URL: "http://" + ln.Addr().String() + "/mcp", Token: token}
	if judge != nil {
		b.endpoint.Hook = "http://" + ln.Addr().String() + hookPath
	}
	return b, nil
}

// lastRan returns the command of the last call the command hook let run,
// or "" (no calls judged, or no server).
func (b *boardServer) lastRan() string {
	if b == nil {
		return ""
	}
	if c := b.ran.Load(); c != nil {
		return *c
	}
	return ""
}

// Close stops the server.
func (b *boardServer) Close() {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	if err := b.srv.Shutdown(ctx); err != nil && !errors.Is(err, context.DeadlineExceeded) {
		_ = b.srv.Close()
	}
	_ = b.srv.Close()
}

// terminating notes a result that ends the run, which MCP cannot carry.
type terminating struct {
	tool.Tool
	flag *atomic.Bool
}

// Run implements tool.Tool.
func (t terminating) Run(ctx context.Context, args json.RawMessage, update func(tool.Result)) (tool.Result, error) {
	r, err := t.Tool.Run(ctx, args, update)
	if r.Terminate {
		t.flag.Store(true)
	}
	return r, err
}

// relayedTool is a project MCP server's tool on the run's board server.
// Its name there drops Bonsai's "mcp__" prefix: the engine adds its own
// (Claude Code calls mcp__everything__echo mcp__bonsai__everything__echo).
type relayedTool struct {
	tool.Tool
	name string
}

func relayed(t tool.Tool) tool.Tool {
	return relayedTool{Tool: t, name: strings.TrimPrefix(t.Name(), "mcp__")}
}

// Name implements tool.Tool.
func (t relayedTool) Name() string { return t.name }
