package web

import (
	"context"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/bonsai-run/bonsai/internal/board"
)

// TestBrowser_ProjectSettings opens a project's settings from its board,
// turns on "agents take BACKLOG tickets", saves, and sees it kept after a
// reload; then archives the project and unarchives it from the board.
func TestBrowser_ProjectSettings(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("browser test")
	}
	e := newEnv(t)
	e.project(t, "demo")
	ctx := newBrowser(t)
	steps(t, ctx, "log in", chromedp.Navigate(e.ts.URL+"/?token="+e.token), chromedp.WaitVisible(chromedp.CSS(".project-card")))
	steps(t, ctx, "open the board", chromedp.Navigate(e.ts.URL+"/p/demo"), chromedp.WaitVisible(chromedp.CSS("#board")))

	steps(t, ctx, "open the settings from the board", click("#project-settings-link"),
		chromedp.WaitVisible(chromedp.CSS("#project-settings")))
	if eval[bool](t, ctx, `document.getElementById("ps-backlog").checked`) {
		t.Fatal("take backlog is already ticked")
	}
	steps(t, ctx, "tick take backlog", click("#ps-backlog"))
	waitFor(t, ctx, "the box is ticked", `document.getElementById("ps-backlog").checked`)
	steps(t, ctx, "save", click("#save-project"))
	waitFor(t, ctx, "the page says saved", `document.readyState === "complete" && !!document.getElementById("saved") && document.getElementById("saved").textContent === "Saved."`)
	if p, err := e.db.Project(context.Background(), "demo"); err != nil || !p.Agent.TakeBacklog {
		t.Fatalf("after saving %+v, %v", p.Agent, err)
	}
	steps(t, ctx, "reload", chromedp.Reload(), chromedp.WaitVisible(chromedp.CSS("#project-settings")))
	if !eval[bool](t, ctx, `document.getElementById("ps-backlog").checked`) {
		t.Fatal("take backlog is not ticked after a reload")
	}
	screenshot(t, ctx, "project-settings")

	// A refused value shows next to its field, and the typed text stays.
	eval[bool](t, ctx, `(document.getElementById("ps-runTokens").value = "lots") === "lots"`)
	steps(t, ctx, "save a bad cap", click("#save-project"))
	waitFor(t, ctx, "the error shows next to the field", `document.readyState === "complete" && document.getElementById("ps-runTokens").value === "lots" && document.getElementById("ps-runTokens").parentElement.querySelector(".field-error").textContent.includes("whole number of tokens")`)

	// Archive, then unarchive from the board's banner.
	steps(t, ctx, "archive", click("#archive-project"))
	waitFor(t, ctx, "the page says archived", `document.readyState === "complete" && !!document.getElementById("archived")`)
	steps(t, ctx, "open the board", click(".crumbs a"), chromedp.WaitVisible(chromedp.CSS("#archived")))
	screenshot(t, ctx, "board-archived")
	steps(t, ctx, "unarchive", click("#unarchive-project"))
	waitFor(t, ctx, "back on the board, active", `document.readyState === "complete" && location.pathname === "/p/demo" && !!document.getElementById("board") && !document.getElementById("archived")`)
	if p, _ := e.db.Project(context.Background(), "demo"); !p.Active {
		t.Fatal("the project is still archived")
	}
}

// TestBrowser_ProjectSafety chooses the ask mode and an Allow pattern on
// the settings page, sees a bad pattern refused next to its field with
// the text kept, then sees the mode's badge on the board; turning the
// sandbox off puts the warning on the board.
func TestBrowser_ProjectSafety(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("browser test")
	}
	e := newEnv(t)
	e.project(t, "demo")
	ctx := newBrowser(t)
	steps(t, ctx, "log in", chromedp.Navigate(e.ts.URL+"/?token="+e.token), chromedp.WaitVisible(chromedp.CSS(".project-card")))
	steps(t, ctx, "open the settings", chromedp.Navigate(e.ts.URL+"/p/demo/settings"), chromedp.WaitVisible(chromedp.CSS("#project-settings")))
	if !eval[bool](t, ctx, `document.getElementById("ps-permissionMode-auto").checked`) {
		t.Fatal("auto is not the chosen mode of a new project")
	}
	steps(t, ctx, "choose ask", click("#ps-permissionMode-ask"))
	steps(t, ctx, "type patterns, one bad", chromedp.SendKeys(chromedp.CSS("#ps-allow"), "go test *\ngo vet | tee x"))
	steps(t, ctx, "save", click("#save-project"))
	waitFor(t, ctx, "the bad line shows next to the field, the text kept",
		`document.readyState === "complete" && document.getElementById("ps-allow").value === "go test *\ngo vet | tee x" && `+
			`document.getElementById("ps-allow").parentElement.querySelector(".field-error").textContent.includes('allow, line 2: pattern "go vet | tee x"') && `+
			`document.getElementById("ps-permissionMode-ask").checked`)
	screenshot(t, ctx, "project-settings-bad-pattern")
	if p, _ := e.db.Project(context.Background(), "demo"); p.Agent.PermissionMode != board.ModeAuto || p.Agent.Allow != nil {
		t.Fatalf("a refused form wrote %+v", p.Agent)
	}

	eval[bool](t, ctx, `(document.getElementById("ps-allow").value = "go test *") === "go test *"`)
	steps(t, ctx, "save again", click("#save-project"))
	waitFor(t, ctx, "saved", `document.readyState === "complete" && !!document.getElementById("saved") && document.getElementById("saved").textContent === "Saved."`)
	if p, _ := e.db.Project(context.Background(), "demo"); p.Agent.PermissionMode != board.ModeAsk || len(p.Agent.Allow) != 1 {
		t.Fatalf("after saving %+v", p.Agent)
	}
	steps(t, ctx, "open the board", click(".crumbs a"), chromedp.WaitVisible(chromedp.CSS("#board")))
	waitFor(t, ctx, "the board shows the ask badge", `(document.querySelector(".board-head h1 .badge.mode") || {}).textContent === "Permission mode: ask"`)
	if eval[bool](t, ctx, `!!document.getElementById("sandbox-off")`) {
		t.Fatal("the board warns about a sandbox that is on")
	}

	steps(t, ctx, "open the settings", click("#project-settings-link"), chromedp.WaitVisible(chromedp.CSS("#project-settings")))
	steps(t, ctx, "turn the sandbox off", click("#ps-sandbox-off"), click("#save-project"))
	waitFor(t, ctx, "the settings page warns", `document.readyState === "complete" && !!document.getElementById("sandbox-off")`)
	steps(t, ctx, "open the board", click(".crumbs a"), chromedp.WaitVisible(chromedp.CSS("#board")))
	waitFor(t, ctx, "the board warns", `(document.getElementById("sandbox-off") || {}).textContent.includes("Commands run on the host as you, without the sandbox")`)
	screenshot(t, ctx, "board-sandbox-off")
}
