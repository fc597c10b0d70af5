package cli

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/url"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/bonsai-run/bonsai/internal/gittest"
)

// runErr runs one command and returns its error, for comparing refusals.
func (ta *testApp) runErr(args ...string) error {
	ta.t.Helper()
	var out bytes.Buffer
	a := newApp(strings.NewReader(""), &out, io.Discard, ta.getenv)
	root := newRootCmd(a)
	root.SetArgs(args)
	root.SetOut(&out)
	root.SetErr(io.Discard)
	err := root.ExecuteContext(context.Background())
	a.close()
	return err
}

// demoBoard makes project demo with ticket demo#1 in IN_PROGRESS (one
// criterion) and returns the repository's path.
func demoBoard(t *testing.T, ta *testApp) string {
	repo := filepath.Join(t.TempDir(), "repo")
	if err := gittest.Init(repo, nil); err != nil {
		t.Fatal(err)
	}
	ta.run("project", "add", "demo", "--repo", repo)
	ta.run("ticket", "add", "demo", "Do the thing", "--criterion", "the thing is done")
	ta.run("ticket", "move", "demo#1", "RESEARCH")
	ta.run("ticket", "move", "demo#1", "IN_PROGRESS")
	return repo
}

// stdioClient runs `bonsai mcp args…` on pipes and connects the SDK's
// client to it.
func stdioClient(t *testing.T, ta *testApp, args ...string) *mcp.ClientSession {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	a := newApp(inR, outW, io.Discard, ta.getenv)
	root := newRootCmd(a)
	root.SetArgs(append([]string{"mcp"}, args...))
	done := make(chan error, 1)
	go func() {
		err := root.ExecuteContext(context.Background())
		a.close()
		outW.Close()
		done <- err
	}()
	c := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil)
	cs, err := c.Connect(context.Background(), &mcp.IOTransport{Reader: outR, Writer: inW}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cs.Close()
		if err := <-done; err != nil {
			t.Errorf("bonsai mcp: %v", err)
		}
	})
	return cs
}

func callTool(t *testing.T, cs *mcp.ClientSession, name string, args map[string]any) (string, bool) {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String(), res.IsError
}

func toolNames(t *testing.T, cs *mcp.ClientSession) string {
	t.Helper()
	var names []string
	for tl, err := range cs.Tools(context.Background(), nil) {
		if err != nil {
			t.Fatal(err)
		}
		names = append(names, tl.Name)
	}
	return strings.Join(names, " ")
}

// personSession works the board as a person over cs, as the CLI would.
func personSession(t *testing.T, ta *testApp, cs *mcp.ClientSession) {
	if got, want := toolNames(t, cs), "attachment_read projects_list ticket_ask ticket_attach ticket_attachments ticket_comment ticket_create ticket_link ticket_move ticket_plan ticket_run ticket_show ticket_stop tickets_list"; got != want {
		t.Errorf("tools = %s, want %s", got, want)
	}
	if out, isErr := callTool(t, cs, "projects_list", nil); isErr || !strings.Contains(out, `"slug": "demo"`) {
		t.Errorf("projects_list = %v %s", isErr, out)
	}
	out, isErr := callTool(t, cs, "ticket_create", map[string]any{"project": "demo", "title": "Through MCP", "criteria": []string{"it works"}, "priority": "high"})
	if isErr || out != "Created demo#2 (Through MCP) in BACKLOG." {
		t.Errorf("ticket_create = %v %q", isErr, out)
	}
	if out, isErr := callTool(t, cs, "tickets_list", map[string]any{"project": "demo", "state": "BACKLOG"}); isErr || !strings.Contains(out, `"ref": "demo#2"`) || strings.Contains(out, "demo#1") {
		t.Errorf("tickets_list = %v %s", isErr, out)
	}
	if _, isErr := callTool(t, cs, "ticket_comment", map[string]any{"ticket": "demo#2", "content": "from my editor"}); isErr {
		t.Error("ticket_comment refused")
	}
	if _, isErr := callTool(t, cs, "ticket_plan", map[string]any{"ticket": "demo#2", "plan": "1. do it"}); isErr {
		t.Error("ticket_plan refused")
	}
	if _, isErr := callTool(t, cs, "ticket_ask", map[string]any{"ticket": "demo#2", "question": "why?"}); isErr {
		t.Error("ticket_ask refused")
	}
	show := ta.run("ticket", "show", "demo#2", "--json")
	for _, want := range []string{`"plan": "1. do it"`, `"content": "from my editor"`, `"authorName": "tester"`, `"kind": "question"`, `"priority": 1`} {
		if !strings.Contains(show, want) {
			t.Errorf("ticket show lacks %s:\n%s", want, show)
		}
	}
	if out, isErr := callTool(t, cs, "ticket_show", map[string]any{"ticket": "demo#2"}); isErr || !strings.Contains(out, "from my editor") {
		t.Errorf("ticket_show = %v %s", isErr, out)
	}
	if out, isErr := callTool(t, cs, "ticket_move", map[string]any{"ticket": "demo#2", "to": "RESEARCH"}); isErr || out != "Moved demo#2 to RESEARCH." {
		t.Errorf("ticket_move = %v %q", isErr, out)
	}
	// The board refuses what the CLI refuses, with the same words.
	cliErr := ta.runErr("ticket", "move", "demo#1", "VERIFICATION")
	if cliErr == nil {
		t.Fatal("the CLI moved demo#1 to VERIFICATION")
	}
	if out, isErr := callTool(t, cs, "ticket_move", map[string]any{"ticket": "demo#1", "to": "VERIFICATION"}); !isErr || out != cliErr.Error() {
		t.Errorf("ticket_move VERIFICATION = %v %q, want the CLI's %q", isErr, out, cliErr)
	}
	if out, isErr := callTool(t, cs, "ticket_show", map[string]any{"ticket": "demo#9"}); !isErr || !strings.Contains(out, "demo#9") {
		t.Errorf("ticket_show demo#9 = %v %q", isErr, out)
	}
	if out, isErr := callTool(t, cs, "ticket_move", map[string]any{"ticket": "demo#1", "to": "SOMEWHERE"}); !isErr || !strings.Contains(out, "Invalid arguments for ticket_move") {
		t.Errorf("bad state = %v %q", isErr, out)
	}
}

func TestMCP_StdioPersonTools(t *testing.T) {
	t.Parallel()
	ta := newTestApp(t)
	ta.run("init")
	demoBoard(t, ta)
	personSession(t, ta, stdioClient(t, ta))
}

func TestMCP_TicketScopeRefusesMoveWithoutEvidence(t *testing.T) {
	t.Parallel()
	ta := newTestApp(t)
	ta.run("init")
	repo := demoBoard(t, ta)
	// A worktree of the project's repository, as the heartbeat makes; the
	// tools run the verify command in it through the project's sandbox.
	wt := filepath.Join(t.TempDir(), "wt")
	if out, err := exec.Command("git", "-C", repo, "worktree", "add", "-q", "-b", "t1", wt).CombinedOutput(); err != nil {
		t.Fatalf("git worktree add: %v\n%s", err, out)
	}
	cs := stdioClient(t, ta, "--ticket", "demo#1", "--root", wt)
	if got := toolNames(t, cs); got != "ticket_ask ticket_comment ticket_move ticket_plan" {
		t.Errorf("tools = %s", got)
	}
	out, isErr := callTool(t, cs, "ticket_move", map[string]any{"to": "VERIFICATION", "criteria": []any{}})
	if !isErr || !strings.Contains(out, `not moved to VERIFICATION: no evidence for criterion 1 ("the thing is done")`) {
		t.Errorf("move without evidence = %v %q", isErr, out)
	}
	if _, isErr := callTool(t, cs, "ticket_comment", map[string]any{"content": "working on it", "kind": "status"}); isErr {
		t.Error("ticket_comment refused")
	}
	show := ta.run("ticket", "show", "demo#1", "--json")
	if !strings.Contains(show, `"authorType": "agent"`) || !strings.Contains(show, "working on it") {
		t.Errorf("the agent's comment is missing:\n%s", show)
	}
	if !strings.Contains(show, `"state": "IN_PROGRESS"`) {
		t.Errorf("the ticket moved:\n%s", show)
	}
}

func TestMCP_TicketScopeNeedsAWorktree(t *testing.T) {
	t.Parallel()
	ta := newTestApp(t)
	ta.run("init")
	demoBoard(t, ta)
	err := ta.runErr("mcp", "--ticket", "demo#1")
	if err == nil || !strings.Contains(err.Error(), "demo#1 has no worktree") {
		t.Errorf("err = %v", err)
	}
}

// bearer adds the web token to every request.
type bearer struct {
	token string
	next  http.RoundTripper
}

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return b.next.RoundTrip(r)
}

func TestMCP_StreamableHTTPOnServe(t *testing.T) {
	t.Parallel()
	ta := newTestApp(t)
	ta.run("init")
	demoBoard(t, ta)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	login, done := ta.serve(ctx, &syncBuffer{})
	u, err := url.Parse(login)
	if err != nil {
		t.Fatal(err)
	}
	token := u.Query().Get("token")
	endpoint := u.Scheme + "://" + u.Host + "/mcp"

	// Without the token, and with a wrong one, nothing is served.
	for _, h := range []string{"", "Bearer wrong-token-wrong-token"} {
		req, _ := http.NewRequest("POST", endpoint, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`))
		req.Header.Set("Content-Type", "application/json")
		if h != "" {
			req.Header.Set("Authorization", h)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusUnauthorized || !strings.Contains(string(body), "Bearer") {
			t.Errorf("%q: %d %s", h, resp.StatusCode, body)
		}
	}

	c := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil)
	cs, err := c.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: endpoint,
		HTTPClient: &http.Client{Transport: bearer{token, http.DefaultTransport}}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	personSession(t, ta, cs)
	cs.Close()
	cancel()
	if err := <-done; err != nil {
		t.Errorf("serve: %v", err)
	}
}
