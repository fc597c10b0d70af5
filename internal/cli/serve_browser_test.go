package cli

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/bonsai-run/bonsai/internal/browsertest"
	"github.com/bonsai-run/bonsai/internal/gittest"
	"github.com/bonsai-run/bonsai/internal/llm"
	"github.com/bonsai-run/bonsai/internal/llm/llmtest"
)

// startChromium returns a tab of its own for t on the test process's one
// headless Chromium (browsertest), as internal/web's browser tests get:
// its cookies and storage are t's alone. Without Chromium the test fails
// in CI and skips elsewhere.
func startChromium(t *testing.T) context.Context {
	t.Helper()
	return browsertest.New(t)
}

// pollJS waits until a JavaScript condition holds, retrying across
// navigations.
func pollJS(t *testing.T, ctx context.Context, what, cond string, within time.Duration) {
	t.Helper()
	deadline := time.Now().Add(within)
	for {
		c, cancel := context.WithTimeout(ctx, time.Until(deadline))
		_, err := chromedp.Run(c, chromedp.Poll[bool](cond))
		cancel()
		if err == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("waiting until %s: %v", what, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// eventStreamsOpen holds in a page once every event stream it connects
// (htmx's sse-connect) is open.
const eventStreamsOpen = `(() => {
	const els = [...document.querySelectorAll("[sse-connect]")];
	return els.length > 0 && els.every(el => {
		const s = (el["htmx-internal-data"] || {}).sseEventSource;
		return !!s && s.readyState === EventSource.OPEN;
	});
})()`

// TestServe_BrowserWatchesAgentRun runs the whole thing: bonsai serve, a
// browser on the ticket page, and a heartbeat running the real agent loop
// and tools against a fake Anthropic server scripted as a model would act.
// The agent's first message must show on the page while the run is still
// going (its bash call sleeps), and the page must show the outcome after.
func TestServe_BrowserWatchesAgentRun(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("browser test")
	}
	browser := startChromium(t)
	ta := newTestApp(t)
	repo := gittest.Repo(t, t.TempDir(), map[string]string{"README.md": "# demo\n"})
	ta.run("project", "add", "demo", "--repo", repo)
	ta.run("ticket", "add", "demo", "Add a feature", "--state", "RESEARCH", "--criterion", "feature.txt exists")

	call := func(id, name, args string) llm.Part { return llm.ToolCall(id, name, []byte(args)) }
	turn := func(usage int64, parts ...llm.Part) llmtest.ServerTurn {
		return llmtest.ServerTurn{Message: llm.Message{Role: llm.RoleAssistant, Content: parts,
			Usage: &llm.Usage{Input: usage, Output: 20}}}
	}
	model := llmtest.NewServer(t,
		turn(1000, llm.Text("Looking around the repository first."), call("toolu_1", "bash", `{"command":"sleep 3; ls"}`)),
		turn(1100, call("toolu_2", "ticket_plan", `{"plan":"Write **feature.txt** and commit it."}`)),
		turn(1200, call("toolu_3", "ticket_move", `{"to":"IN_PROGRESS"}`)),
		turn(1300, llm.Text("Plan saved; implementing next.")),
	)
	ta.env["ANTHROPIC_BASE_URL"], ta.env["ANTHROPIC_API_KEY"] = model.URL, "test-key"

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var out syncBuffer
	url, done := ta.serve(ctx, &out)
	base, _, _ := strings.Cut(url, "/?token=")
	c, stop := context.WithTimeout(browser, 20*time.Second)
	defer stop()
	if err := chromedp.Do(c, chromedp.Navigate(url), chromedp.Navigate(base+"/p/demo/1"),
		chromedp.WaitVisible(chromedp.CSS(".ticket-head"))); err != nil {
		t.Fatalf("open the ticket page: %v", err)
	}
	pollJS(t, browser, "the page's event stream is open", eventStreamsOpen, 10*time.Second)

	beat := make(chan string, 1)
	go func() {
		var o, e bytes.Buffer
		a := newApp(strings.NewReader(""), &o, &e, ta.getenv)
		root := newRootCmd(a)
		root.SetArgs([]string{"heartbeat"})
		root.SetOut(&o)
		root.SetErr(&e)
		err := root.ExecuteContext(context.Background())
		a.close()
		if err != nil {
			beat <- "error: " + err.Error() + "\n" + e.String()
			return
		}
		beat <- o.String()
	}()

	pollJS(t, browser, "the agent's first message streams in while it runs",
		`!!document.getElementById("activity") && document.getElementById("activity").textContent.includes("Looking around the repository first.")`,
		15*time.Second)
	if running, _ := chromedp.Run(browser, chromedp.Evaluate[bool](`!!document.querySelector(".badge.running")`)); !running {
		t.Error("the page did not show the agent as running")
	}
	var result string
	select {
	case result = <-beat:
	case <-time.After(60 * time.Second):
		t.Fatal("the heartbeat did not finish")
	}
	if !strings.Contains(result, "completed, moved to IN_PROGRESS") {
		t.Fatalf("heartbeat: %s", result)
	}
	pollJS(t, browser, "the page shows the outcome without a reload",
		`!document.getElementById("activity") && document.querySelector(".state").textContent === "In progress" && document.querySelector(".runs .run-status").textContent === "completed" && document.querySelector(".plan").textContent.includes("feature.txt")`,
		10*time.Second)
	cancel()
	<-done
}
