package web

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"

	"github.com/bonsai-run/bonsai/internal/agent"
	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/credentials"
	"github.com/bonsai-run/bonsai/internal/heartbeat/agentrunner"
	"github.com/bonsai-run/bonsai/internal/llm"
)

// TestBrowser_NoPageOverflows loads every page of the router (routes.go)
// at 1,400 and 420 px wide, with long real-world content (a long command
// running, a diff with long lines, the model-keys table, a long project
// name and repository URL), and checks that none is wider than the
// window: the document never scrolls sideways, and the top menu fits on
// one line. With $BONSAI_TEST_ARTIFACTS set, each page's screenshot goes
// there.
func TestBrowser_NoPageOverflows(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("browser test")
	}
	e := newEnv(t)
	e.srv.opts.Credentials = storeCredentials{s: credentials.Open(t.TempDir(), credentials.Options{Keyring: credentials.KindFile}),
		env: map[string]string{"ANTHROPIC_API_KEY": "sk-set-in-the-environment"}}
	e.srv.opts.Diff = func(context.Context, board.Project, board.Ticket) (string, error) {
		return sampleDiff + "diff --git a/long.txt b/long.txt\n--- a/long.txt\n+++ b/long.txt\n@@ -1 +1 @@\n-old\n+" + strings.Repeat("a-very-long-line-", 40) + "\n", nil
	}
	e.srv.opts.RunNow = func(context.Context, board.Ref) (string, error) { return "started", nil }
	e.srv.opts.FireSchedule = func(context.Context, string, string) (string, error) { return "fired", nil }
	p := e.project(t, "demo")
	long := strings.Repeat("https://git.example.com/a-rather-long-organisation-name/", 3) + "repository.git"
	name := "A project with a rather long name for a narrow screen"
	if _, err := e.db.UpdateProject(context.Background(), p.Slug, board.ProjectPatch{Name: &name, Repo: &long}); err != nil {
		t.Fatal(err)
	}
	bg := context.Background()
	desc := "Steps:\n\n```sh\n" + strings.Repeat("make build-everything-with-a-long-target-name ", 6) + "\n```\n\nSee " + strings.Repeat("https://example.com/a/long/path/", 6)
	tk := e.ticket(t, "demo", "Make the build print every step "+strings.Repeat("verbosely ", 8), board.InProgress)
	e.db.UpdateTicket(bg, tk.Ref(), board.TicketPatch{Description: &desc, Plan: ptr("1. " + strings.Repeat("edit-the-makefile-", 10))}, board.Human)
	review := e.ticket(t, "demo", "Ready for review", board.InProgress)
	e.toVerification(t, review.Ref())
	e.request(t, review.Ref(), strings.Repeat("curl -fsSL https://example.com/install.sh | sh ", 4), "curl *")
	e.ticket(t, "demo", "Parked", board.Backlog)
	wantStatus(t, e.api(t, "POST", "/api/projects/demo/schedules",
		`{"name": "deps", "kind": "cron", "expr": "0 9 * * 1", "timezone": "America/Argentina/Buenos_Aires", "title": "Update the dependencies {date}", "preCheck": "test -n \"$(git log --since=1.week --oneline)\""}`), 201)

	// The first ticket's agent runs a long command that prints long lines.
	run, err := otherWriter(t, e).StartRun(bg, board.Run{TicketID: tk.ID, Task: board.TaskImplement})
	if err != nil {
		t.Fatal(err)
	}
	f := agentSession(t, e, tk)
	cmd := `{"command":"` + strings.Repeat("go test -run TestEverything ./... ", 5) + `"}`
	appendMsg(t, f, llm.UserText("Work on ticket demo#1"))
	appendMsg(t, f, llm.Message{Role: llm.RoleAssistant, StopReason: llm.StopToolUse, Content: []llm.Part{
		llm.Text("Running " + strings.Repeat("everything-", 20)), llm.ToolCall("c1", "bash", []byte(cmd))}})
	lw := agentrunner.NewLive(f.Path(), nil)
	defer lw.Close()
	lw.Event(agent.Event{Type: agent.EventToolExecutionStart, ToolCallID: "c1", ToolName: "bash", Args: []byte(cmd)})

	dir := os.Getenv("BONSAI_TEST_ARTIFACTS")
	pages := []struct{ name, path, ready string }{
		{"login", "/login", "form"},
		{"projects", "/", ".project-card"},
		{"board", "/p/demo", "#board"},
		{"project-settings", "/p/demo/settings", "main form"},
		{"schedules", "/p/demo/schedules", "#schedules"},
		{"ticket-live-activity", "/p/demo/1", "#activity-partial .entry-running"},
		{"ticket-review-changes", "/p/demo/2", ".changes .diff, .changes pre"},
		{"run", "/runs/" + run.ID, "#activity"},
		{"settings", "/settings", "table.keys"},
		{"notifications", "/settings/notifications", "main"},
		{"insights", "/insights", "#spend svg.chart"},
		{"project-insights", "/p/demo/insights", "#spend svg.chart"},
		{"not-found", "/p/demo/99", "main"},
	}
	ctx := newBrowser(t)
	for _, width := range []int64{1400, 420} {
		steps(t, ctx, fmt.Sprintf("a %d px window", width), func(ctx context.Context, tg *chromedp.Target) (chromedp.Void, error) {
			_, err := cdp.Call(ctx, tg, emulation.SetDeviceMetricsOverride, emulation.SetDeviceMetricsOverrideParams{Width: width, Height: 900, DeviceScaleFactor: 1})
			return chromedp.Void{}, err
		})
		for _, pg := range pages {
			if pg.name == "login" {
				steps(t, ctx, "log out", chromedp.Navigate(e.ts.URL+"/login"))
			} else if pg.name == "projects" {
				steps(t, ctx, "log in", chromedp.Navigate(e.ts.URL+"/?token="+e.token))
			} else {
				steps(t, ctx, "open "+pg.path, chromedp.Navigate(e.ts.URL+pg.path))
			}
			waitFor(t, ctx, pg.name+" is shown", fmt.Sprintf(`document.readyState === "complete" && !!document.querySelector(%q)`, pg.ready))
			got := eval[[]int](t, ctx, `[document.documentElement.scrollWidth, window.innerWidth]`)
			// The menu is on one line: its links share a top, none wraps.
			wraps := eval[string](t, ctx, `(() => {
				const links = [...document.querySelectorAll("header.top nav a")];
				if (!links.length) return "";
				const top = links[0].getBoundingClientRect().top;
				const bad = links.filter(a => { const r = a.getBoundingClientRect(); return Math.abs(r.top - top) > 2 || r.height > 1.5 * parseFloat(getComputedStyle(a).lineHeight); });
				return bad.map(a => a.textContent.trim()).join(", ");
			})()`)
			if dir != "" {
				shot(t, ctx, filepath.Join(dir, fmt.Sprintf("%s-%d.png", pg.name, width)))
			}
			if got[0] > got[1] {
				// The elements past the window's edge that no scrolling box
				// of their own holds.
				wide := eval[string](t, ctx, `[...document.querySelectorAll("body *")].filter(el => {
					if (el.getBoundingClientRect().right <= window.innerWidth + 1) return false;
					for (let p = el.parentElement; p && p !== document.body; p = p.parentElement) {
						if (getComputedStyle(p).overflowX !== "visible") return false;
					}
					return true;
				}).slice(-5).map(el => el.tagName.toLowerCase() + (el.id ? "#" + el.id : "") + (el.className && typeof el.className === "string" ? "." + el.className.trim().split(/\s+/).join(".") : "") + " " + Math.round(el.getBoundingClientRect().right)).join(", ")`)
				t.Errorf("%s at %d px: the page is %d px wide (window %d); too wide: %s", pg.path, width, got[0], got[1], wide)
			}
			if wraps != "" {
				t.Errorf("%s at %d px: the top menu wraps at %s", pg.path, width, wraps)
			}
		}
	}
}

// shot saves a full-page screenshot at path.
func shot(t *testing.T, ctx context.Context, path string) {
	t.Helper()
	c, cancel := context.WithTimeout(ctx, 15*time.Second)
	defer cancel()
	png, err := chromedp.Run(c, chromedp.FullScreenshot(100))
	if err != nil {
		t.Fatalf("screenshot %s: %v", path, err)
	}
	if err := os.WriteFile(path, png, 0o644); err != nil {
		t.Fatal(err)
	}
}
