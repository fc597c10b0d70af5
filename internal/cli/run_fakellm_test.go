package cli_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/bonsai-run/bonsai/internal/llm/llmtest"
)

// scriptTB lets llmtest.NewServer tie the server's life to one script.
type scriptTB struct {
	testing.TB
	ts *testscript.TestScript
}

func (s scriptTB) Cleanup(f func()) { s.ts.Defer(f) }
func (s scriptTB) Helper()          {}

// fakeServers remembers the server each script started, by work dir.
var (
	fakeMu      sync.Mutex
	fakeServers = map[string]*llmtest.Server{}
)

func fakeServer(key string) *llmtest.Server {
	fakeMu.Lock()
	defer fakeMu.Unlock()
	return fakeServers[key]
}

func setFakeServer(key string, s *llmtest.Server) {
	fakeMu.Lock()
	defer fakeMu.Unlock()
	if s == nil {
		delete(fakeServers, key)
	} else {
		fakeServers[key] = s
	}
}

// cmdFakeLLM starts llmtest's HTTP server in the test process, playing the
// turns of a file (one JSON llmtest.ServerTurn per line), and points the
// Anthropic, OpenAI and Ollama base URLs and keys of later commands at it
// (FAKELLM_HOSTPORT is its host:port):
// fakellm <turns-file>. fakellm requests prints, one per line, the JSON
// bodies the server received so far; fakellm header <name> prints, one
// per line, that header of each request (X-Api-Key or Authorization: the
// key it was sent); fakellm key <key> makes the server refuse, with 401 and the
// provider's error, every request that does not carry that key; fakellm
// require-reasoning <field> makes it refuse, as DeepSeek does, a Chat
// Completions request whose tool-call turns lack that field; fakellm
// refuse-summary makes it refuse, as OpenAI refuses unverified
// organisations, a Responses request asking for reasoning summaries.
func cmdFakeLLM(t testing.TB) func(ts *testscript.TestScript, neg bool, args []string) {
	return func(ts *testscript.TestScript, neg bool, args []string) {
		key := ts.Getenv("WORK")
		if !neg && len(args) == 2 && args[0] == "header" {
			srv := fakeServer(key)
			if srv == nil {
				ts.Fatalf("fakellm header: no server started")
			}
			for _, r := range srv.Requests() {
				fmt.Fprintf(ts.Stdout(), "%s %s\n", r.Path, r.Header.Get(args[1]))
			}
			return
		}
		if !neg && len(args) == 2 && args[0] == "require-reasoning" {
			srv := fakeServer(key)
			if srv == nil {
				ts.Fatalf("fakellm require-reasoning: no server started")
			}
			srv.RequireReasoning(args[1])
			return
		}
		if !neg && len(args) == 1 && args[0] == "refuse-summary" {
			srv := fakeServer(key)
			if srv == nil {
				ts.Fatalf("fakellm refuse-summary: no server started")
			}
			srv.RefuseReasoningSummary(true)
			return
		}
		if !neg && len(args) == 2 && args[0] == "key" {
			srv := fakeServer(key)
			if srv == nil {
				ts.Fatalf("fakellm key: no server started")
			}
			srv.RequireKey(args[1])
			return
		}
		if neg || len(args) != 1 {
			ts.Fatalf("usage: fakellm <turns-file> | fakellm requests | fakellm header <name> | fakellm key <key> | fakellm require-reasoning <field> | fakellm refuse-summary")
		}
		if args[0] == "requests" {
			srv := fakeServer(key)
			if srv == nil {
				ts.Fatalf("fakellm requests: no server started")
			}
			for _, r := range srv.Requests() {
				fmt.Fprintf(ts.Stdout(), "%s %s\n", r.Path, r.Raw)
			}
			return
		}
		f, err := os.Open(ts.MkAbs(args[0]))
		ts.Check(err)
		defer f.Close()
		var turns []llmtest.ServerTurn
		sc := bufio.NewScanner(f)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			line := strings.TrimSpace(sc.Text())
			if line == "" || strings.HasPrefix(line, "#") {
				continue
			}
			var turn llmtest.ServerTurn
			if err := json.Unmarshal([]byte(line), &turn); err != nil {
				ts.Fatalf("fakellm: %s: %v", line, err)
			}
			turns = append(turns, turn)
		}
		ts.Check(sc.Err())
		srv := llmtest.NewServer(scriptTB{TB: t, ts: ts}, turns...)
		setFakeServer(key, srv)
		ts.Defer(func() { setFakeServer(key, nil) })
		ts.Setenv("ANTHROPIC_BASE_URL", srv.URL)
		ts.Setenv("ANTHROPIC_API_KEY", "test-key")
		ts.Setenv("OPENAI_BASE_URL", srv.URL+"/v1")
		ts.Setenv("OPENAI_API_KEY", "test-key")
		ts.Setenv("OLLAMA_BASE_URL", srv.URL+"/v1")
		ts.Setenv("FAKELLM_HOSTPORT", strings.TrimPrefix(srv.URL, "http://"))
	}
}
