// Package browsertest gives browser tests a real headless Chromium: one
// browser per test process, started by the first test that asks, and a
// tab of its own for each test in a browser context of its own (its own
// cookies, storage and cache, as an incognito window has), so tests run
// in parallel on one browser without seeing each other's logins. Only
// tests import it.
//
// A package whose tests use it calls Close from its TestMain after the
// tests, which stops the browser and removes its profile; without that
// the kernel still kills the browser when the test process ends.
//
// Without Chromium a test is skipped; with CI set it fails, because CI
// installs Chromium (.ci/run) and a skipped test there would hide a
// broken install.
package browsertest

import (
	"context"
	"fmt"
	"os"
	"sync"
	"testing"

	"github.com/chromedp/chromedp"
)

// EnvPath names the Chromium binary to run instead of Debian's
// /usr/bin/chromium.
const EnvPath = "BONSAI_CHROMIUM"

// Width and Height are the size of every tab's viewport in CSS pixels.
const (
	Width  = 1400
	Height = 900
)

// shared is the browser of this test process.
var shared struct {
	mu     sync.Mutex
	ctx    context.Context // its first tab; tabs of tests are its children
	cancel func()          // stops the browser and removes its profile
}

// Path returns the Chromium binary the tests run.
func Path() string {
	if p := os.Getenv(EnvPath); p != "" {
		return p
	}
	return "/usr/bin/chromium"
}

// New returns a new tab for t alone, in a browser context of its own on
// the shared browser, closed when t ends. Without Chromium t fails when
// CI is set and is skipped otherwise.
func New(t testing.TB) context.Context {
	t.Helper()
	path := Path()
	if _, err := os.Stat(path); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("browser tests need Chromium at %s (apt-get install -y chromium): %v", path, err)
		}
		t.Skipf("no Chromium at %s; install it (apt-get install -y chromium) to run the browser tests", path)
	}
	browser, err := start(path)
	if err != nil {
		t.Fatalf("start Chromium: %v", err)
	}
	ctx, cancel := chromedp.NewContext(browser, chromedp.WithNewBrowserContext())
	t.Cleanup(cancel)
	// The tab's first action creates it and its browser context, which
	// live as long as the context of that action: it must not have a
	// timeout.
	if err := chromedp.Do(ctx); err != nil {
		t.Fatalf("open a tab in Chromium: %v", err)
	}
	return ctx
}

// start returns the shared browser, starting it if there is none or the
// last one has ended (a crash fails the tests that were using it, not
// every test after them).
func start(path string) (context.Context, error) {
	shared.mu.Lock()
	defer shared.mu.Unlock()
	if shared.ctx != nil && shared.ctx.Err() == nil {
		return shared.ctx, nil
	}
	if shared.cancel != nil {
		shared.cancel()
	}
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), options(path)...)
	ctx, cancel := chromedp.NewContext(actx)
	// The first action starts the browser: no timeout may end it, since
	// the browser lives as long as ctx does.
	if err := chromedp.Do(ctx); err != nil {
		cancel()
		cancelAlloc()
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	shared.ctx = ctx
	shared.cancel = func() { cancel(); cancelAlloc() }
	return ctx, nil
}

// options are the flags of the shared browser: headless, a profile in a
// temporary directory chromedp removes, nothing that talks to Google,
// and no throttling of the tabs a person would call in the background,
// since every test's tab is one of several.
func options(path string) []chromedp.ExecAllocatorOption {
	return []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(path),
		chromedp.Headless,
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.NoFirstRun,
		chromedp.NoDefaultBrowserCheck,
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.Flag("disable-background-timer-throttling", true),
		chromedp.Flag("disable-backgrounding-occluded-windows", true),
		chromedp.Flag("disable-renderer-backgrounding", true),
		chromedp.Flag("window-size", fmt.Sprintf("%d,%d", Width, Height)),
	}
}

// Close stops the shared browser, if one was started, and removes its
// profile. Call it from TestMain once the tests have run.
func Close() {
	shared.mu.Lock()
	defer shared.mu.Unlock()
	if shared.cancel != nil {
		shared.cancel()
	}
	shared.ctx, shared.cancel = nil, nil
}

// Closing wraps m, a *testing.M, so that running it closes the shared
// browser after the tests: for a TestMain that hands m on, as
// testscript.Main and pgtest.Main take it.
func Closing(m interface{ Run() int }) interface{ Run() int } {
	return closing{m}
}

type closing struct{ m interface{ Run() int } }

func (c closing) Run() int {
	defer Close()
	return c.m.Run()
}
