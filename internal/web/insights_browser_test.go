package web

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"
)

// TestBrowser_InsightsCharts opens the Insights pages in Chromium at 420
// and 1,400 px: every chart is drawn (bars with a size), labelled (a
// title and an accessible name), has a captioned table in its section,
// and neither the page nor the menu overflows.
func TestBrowser_InsightsCharts(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("browser test")
	}
	e := newEnv(t)
	insightsBoard(t, e)
	ctx := newBrowser(t)
	steps(t, ctx, "log in", chromedp.Navigate(e.ts.URL+"/?token="+e.token))
	for _, width := range []int64{1400, 420} {
		steps(t, ctx, fmt.Sprintf("a %d px window", width), func(ctx context.Context, tg *chromedp.Target) (chromedp.Void, error) {
			_, err := cdp.Call(ctx, tg, emulation.SetDeviceMetricsOverride, emulation.SetDeviceMetricsOverrideParams{Width: width, Height: 900, DeviceScaleFactor: 1})
			return chromedp.Void{}, err
		})
		for _, path := range []string{"/insights", "/p/demo/insights"} {
			steps(t, ctx, "open "+path, chromedp.Navigate(e.ts.URL+path))
			waitFor(t, ctx, path+" is shown", `document.readyState === "complete" && !!document.querySelector("#spend svg.chart")`)
			bad := eval[string](t, ctx, `(() => {
				const out = [];
				const charts = [...document.querySelectorAll("svg.chart")];
				if (charts.length !== 8) out.push(charts.length + " charts");
				for (const svg of charts) {
					const name = svg.getAttribute("aria-label") || "";
					const title = svg.querySelector("title");
					if (svg.getAttribute("role") !== "img" || !name || !title || title.textContent !== name) out.push("unlabelled chart " + name);
					const box = svg.getBoundingClientRect();
					if (box.width < 200 || box.right > window.innerWidth + 1) out.push(name + " is " + Math.round(box.width) + " px wide at " + Math.round(box.right));
					if (![...svg.querySelectorAll("rect")].some(r => r.getBoundingClientRect().width > 0 && r.getBoundingClientRect().height > 0)) out.push(name + " draws no bar");
					const sec = svg.closest("section");
					if (!sec || !sec.querySelector("table caption")) out.push(name + " has no table beside it");
					const font = [...svg.querySelectorAll("text")].map(t => t.getBoundingClientRect().height).filter(h => h > 0);
					if (font.length && Math.min(...font) < 8) out.push(name + " has text " + Math.min(...font).toFixed(1) + " px high");
				}
				return out.join("; ");
			})()`)
			if bad != "" {
				t.Errorf("%s at %d px: %s", path, width, bad)
			}
			if dir := os.Getenv("BONSAI_TEST_ARTIFACTS"); dir != "" {
				shot(t, ctx, filepath.Join(dir, fmt.Sprintf("insights%s-%d.png", strings.ReplaceAll(strings.TrimSuffix(path, "/insights"), "/", "-"), width)))
			}
			got := eval[[]int](t, ctx, `[document.documentElement.scrollWidth, window.innerWidth]`)
			if got[0] > got[1] {
				t.Errorf("%s at %d px: the page is %d px wide (window %d)", path, width, got[0], got[1])
			}
			wraps := eval[string](t, ctx, `(() => {
				const links = [...document.querySelectorAll("header.top nav a")];
				const top = links[0].getBoundingClientRect().top;
				return links.filter(a => Math.abs(a.getBoundingClientRect().top - top) > 2).map(a => a.textContent.trim()).join(", ");
			})()`)
			if wraps != "" {
				t.Errorf("%s at %d px: the top menu wraps at %s", path, width, wraps)
			}
			if !strings.Contains(eval[string](t, ctx, `document.querySelector("header.top nav").textContent`), "Insights") {
				t.Errorf("%s: the menu has no Insights link", path)
			}
		}
	}
}
