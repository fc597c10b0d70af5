package cli

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/bonsai-run/bonsai/internal/gittest"
)

// TestServe_BrowserNoKeyBanner runs bonsai serve with no model key set
// anywhere: every page must say that agents cannot run, why and how to
// fix it, and the projects page must mark the project affected.
func TestServe_BrowserNoKeyBanner(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("browser test")
	}
	browser := startChromium(t)
	ta := newTestApp(t)
	repo := gittest.Repo(t, t.TempDir(), map[string]string{"README.md": "# demo\n"})
	ta.run("project", "add", "demo", "--repo", repo, "--model", "anthropic/claude-sonnet-4-5")
	ta.run("ticket", "add", "demo", "Add a feature")

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var out syncBuffer
	url, done := ta.serve(ctx, &out)
	base, _, _ := strings.Cut(url, "/?token=")
	c, stop := context.WithTimeout(browser, 30*time.Second)
	defer stop()
	if err := chromedp.Do(c, chromedp.Navigate(url)); err != nil {
		t.Fatalf("log in: %v", err)
	}
	for _, page := range []string{"/", "/p/demo", "/p/demo/1", "/p/demo/settings", "/settings", "/p/nope"} {
		if err := chromedp.Do(c, chromedp.Navigate(base+page)); err != nil {
			t.Fatalf("open %s: %v", page, err)
		}
		banner, err := chromedp.Run(c, chromedp.Evaluate[string](`(document.getElementById("blockers") || {}).textContent || ""`))
		if err != nil {
			t.Fatalf("%s: %v", page, err)
		}
		for _, want := range []string{"Agents cannot run", "ANTHROPIC_API_KEY", "bonsai credentials set anthropic", "demo"} {
			if !strings.Contains(banner, want) {
				t.Errorf("%s: the banner lacks %q:\n%s", page, want, banner)
			}
		}
	}
	if err := chromedp.Do(c, chromedp.Navigate(base+"/")); err != nil {
		t.Fatal(err)
	}
	marked, err := chromedp.Run(c, chromedp.Evaluate[string](`(document.querySelector('a.project-card[href="/p/demo"] .project-blocked') || {}).textContent || ""`))
	if err != nil {
		t.Fatal(err)
	}
	if marked != "agents cannot run" {
		t.Errorf("project mark = %q", marked)
	}
	cancel()
	<-done
}
