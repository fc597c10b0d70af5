//go:build linux

package cli

import (
	"context"
	"encoding/json"
	"net"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/bonsai-run/bonsai/internal/forge"
	"github.com/bonsai-run/bonsai/internal/forge/forgetest"
	"github.com/bonsai-run/bonsai/internal/gittest"
	"github.com/bonsai-run/bonsai/internal/llm"
	"github.com/bonsai-run/bonsai/internal/llm/llmtest"
	"github.com/bonsai-run/bonsai/internal/store/postgres/pgtest"
	"github.com/bonsai-run/bonsai/internal/tools"
)

// TestScreenshot_AgentShowsItsPageOnTheTicket is the acceptance test of
// the screenshot tool: a beat's agent (a scripted model, the real agent
// loop, the real sandbox and Chromium) writes a static page, serves it
// in its sandbox with python3 -m http.server, takes its picture, sees it
// (the next request carries the PNG), and moves the ticket to
// VERIFICATION with the picture attached to its evidence; the ticket page
// in a browser shows the picture.
func TestScreenshot_AgentShowsItsPageOnTheTicket(t *testing.T) {
	t.Parallel()
	browser := screenshotPrereqs(t)
	ta := newTestApp(t)
	agentScreenshots(t, ta, gittest.Repo(t, t.TempDir(), map[string]string{"README.md": "# demo\n"}))
	pageDrawsScreenshot(t, browser, ta)
}

// TestScreenshot_AgentShowsItsPageOnTheTicket_Postgres: the same on a
// board in Postgres, the web server on another data directory: the
// picture's bytes come from the database.
func TestScreenshot_AgentShowsItsPageOnTheTicket_Postgres(t *testing.T) {
	t.Parallel()
	browser := screenshotPrereqs(t)
	u := pgtest.URL(t)
	ta := newTestApp(t)
	ta.env["BONSAI_DATABASE_URL"] = u
	// A board several machines share takes a repository every machine
	// can clone: a fake forge's.
	f := forgetest.New(t, forge.GitHub)
	for _, v := range forge.TokenEnv(forge.GitHub) {
		ta.env[v] = forgetest.Token
	}
	agentScreenshots(t, ta, f.GitRepo(t, "acme", "demo", map[string]string{"README.md": "# demo\n"}))
	web := newTestApp(t)
	web.env["BONSAI_DATABASE_URL"] = u
	if ta.env["BONSAI_DATA_DIR"] == web.env["BONSAI_DATA_DIR"] {
		t.Fatal("the web server shares the worker's data directory")
	}
	pageDrawsScreenshot(t, browser, web)
}

// screenshotPrereqs skips a browser test without bwrap or Chromium (CI
// has both) and returns a tab.
func screenshotPrereqs(t *testing.T) context.Context {
	t.Helper()
	if testing.Short() {
		t.Skip("browser test")
	}
	requireBwrap(t)
	if tools.FindChromium(nil) == "" {
		if os.Getenv("CI") != "" {
			t.Fatal("CI installs Chromium (apt-get install -y chromium)")
		}
		t.Skip("no Chromium installed")
	}
	return startChromium(t)
}

// agentScreenshots runs the beat of the acceptance test on ta's board,
// its project on repo, and checks the model saw the picture and the
// ticket carries it.
func agentScreenshots(t *testing.T, ta *testApp, repo string) {
	t.Helper()
	ta.run("project", "add", "demo", "--repo", repo)
	ta.run("ticket", "add", "demo", "A landing page", "--state", "IN_PROGRESS", "--criterion", "the page greets the visitor")
	port := loopbackPort(t)
	model := llmtest.NewServer(t,
		toolTurn(t, "toolu_1", "bash", map[string]string{"command": `mkdir -p site && printf '<html><body style="margin:0;background:#0a0"><h1>Hello, visitor</h1></body></html>' > site/index.html && git add site && git commit -qm 'add the landing page'`}),
		toolTurn(t, "toolu_2", "screenshot", map[string]any{"url": "http://127.0.0.1:" + port + "/", "width": 800, "height": 600,
			"serve": "exec python3 -m http.server " + port + " --bind 127.0.0.1 --directory site", "path": ".bonsai-tmp/landing.png"}),
		toolTurn(t, "toolu_3", "ticket_move", map[string]any{"to": "VERIFICATION", "criteria": []map[string]any{{
			"criterion": "the page greets the visitor", "evidence": "the screenshot shows Hello, visitor",
			"attach": []string{".bonsai-tmp/landing.png"}}}}),
		llmtest.ServerTurn{Message: llm.Message{Role: llm.RoleAssistant, Content: []llm.Part{llm.Text("Done.")}, Usage: &llm.Usage{Input: 100, Output: 5}}},
	)
	ta.env["ANTHROPIC_BASE_URL"], ta.env["ANTHROPIC_API_KEY"] = model.URL, "test-key"

	out := ta.run("heartbeat")
	if !strings.Contains(out, "moved to VERIFICATION") {
		t.Fatalf("the beat did not move the ticket:\n%s\nrequests: %s", out, lastRequest(model))
	}
	// The request after the screenshot carried the picture.
	reqs := model.Requests()
	if len(reqs) < 3 || !strings.Contains(string(reqs[2].Raw), `"media_type":"image/png"`) {
		t.Fatalf("the model was not sent the picture: %s", lastRequest(model))
	}
	var shown struct {
		State       string `json:"state"`
		Attachments []struct {
			ID, Name, MediaType string
		} `json:"attachments"`
	}
	if err := json.Unmarshal([]byte(ta.run("ticket", "show", "demo#1", "--json")), &shown); err != nil {
		t.Fatal(err)
	}
	if shown.State != "VERIFICATION" || len(shown.Attachments) != 1 || shown.Attachments[0].Name != "landing.png" || shown.Attachments[0].MediaType != "image/png" {
		t.Fatalf("ticket = %+v, want VERIFICATION with landing.png attached", shown)
	}
}

// pageDrawsScreenshot serves ta's board and checks the ticket page draws
// the agent's picture: an 800×600 image from the ticket's attachments,
// green where the page was.
func pageDrawsScreenshot(t *testing.T, browser context.Context, ta *testApp) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var serveOut syncBuffer
	url, done := ta.serve(ctx, &serveOut)
	base, _, _ := strings.Cut(url, "/?token=")
	c, stop := context.WithTimeout(browser, 30*time.Second)
	defer stop()
	if err := chromedp.Do(c, chromedp.Navigate(url), chromedp.Navigate(base+"/p/demo/1")); err != nil {
		t.Fatalf("open the ticket page: %v", err)
	}
	pollJS(t, browser, "the ticket page draws the screenshot", `(() => {
		const img = document.querySelector('img[src*="/attachments/"][alt="landing.png"]');
		if (!img) return false;
		img.scrollIntoView();
		if (!img.complete || img.naturalWidth !== 800 || img.naturalHeight !== 600) return false;
		const c = document.createElement("canvas");
		c.width = 800; c.height = 600;
		const g = c.getContext("2d");
		g.drawImage(img, 0, 0);
		const [r, gr, b] = g.getImageData(700, 500, 1, 1).data;
		return r < 0x20 && gr > 0x90 && b < 0x20;
	})()`, 30*time.Second)
	cancel()
	<-done
}

// toolTurn is a model turn calling one tool.
func toolTurn(t *testing.T, id, name string, args any) llmtest.ServerTurn {
	t.Helper()
	raw, err := json.Marshal(args)
	if err != nil {
		t.Fatal(err)
	}
	return llmtest.ServerTurn{Message: llm.Message{Role: llm.RoleAssistant, Usage: &llm.Usage{Input: 100, Output: 20},
		Content: []llm.Part{llm.ToolCall(id, name, raw)}}}
}

// TestScreenshot_ModelWithoutVisionGetsANotice: for a model whose
// catalog entry takes no images (config.json's models) the picture of a
// workspace file is saved and named, and the model reads a notice in the
// picture's place.
func TestScreenshot_ModelWithoutVisionGetsANotice(t *testing.T) {
	t.Parallel()
	requireBwrap(t)
	if tools.FindChromium(nil) == "" {
		if os.Getenv("CI") != "" {
			t.Fatal("CI installs Chromium (apt-get install -y chromium)")
		}
		t.Skip("no Chromium installed")
	}
	ta := newTestApp(t)
	repo := gittest.Repo(t, t.TempDir(), map[string]string{"page.html": "<h1>Hi</h1>\n"})
	ta.run("project", "add", "demo", "--repo", repo)
	ta.run("config", "set", "models.anthropic/claude-sonnet-4-5.images", "false")
	ta.run("ticket", "add", "demo", "Look at the page", "--state", "IN_PROGRESS")
	model := llmtest.NewServer(t,
		toolTurn(t, "toolu_1", "screenshot", map[string]any{"file": "page.html", "width": 400, "height": 300}),
		llmtest.ServerTurn{Message: llm.Message{Role: llm.RoleAssistant, Content: []llm.Part{llm.Text("I cannot see it.")}, Usage: &llm.Usage{Input: 100, Output: 5}}},
	)
	ta.env["ANTHROPIC_BASE_URL"], ta.env["ANTHROPIC_API_KEY"] = model.URL, "test-key"
	ta.run("heartbeat")
	reqs := model.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests, want 2: %s", len(reqs), lastRequest(model))
	}
	raw := string(reqs[1].Raw)
	if strings.Contains(raw, `"media_type":"image/png"`) || !strings.Contains(raw, llm.ImageOmitted) ||
		!strings.Contains(raw, "Screenshot of page.html at 400×300, saved to .bonsai-tmp/screenshot-") {
		t.Errorf("the request after the screenshot: %s", lastRequest(model))
	}
}

// loopbackPort returns a loopback port nothing listens on now.
func loopbackPort(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	_, port, _ := net.SplitHostPort(l.Addr().String())
	return port
}

// lastRequest is the model's last request, cut, for a failure's message.
func lastRequest(m *llmtest.Server) string {
	reqs := m.Requests()
	if len(reqs) == 0 {
		return "(none)"
	}
	s := string(reqs[len(reqs)-1].Raw)
	if len(s) > 4000 {
		s = s[len(s)-4000:]
	}
	return s
}
