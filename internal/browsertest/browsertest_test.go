package browsertest

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

func TestMain(m *testing.M) { os.Exit(Closing(m).Run()) }

// TestNew_TabsShareNothing logs one tab in to a server (a cookie) and
// checks that a second tab, on the same browser, is not logged in: each
// test's tab has its own cookie jar, as the tests' logins need. Both
// tabs run on the one browser of the process.
func TestNew_TabsShareNothing(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/login" {
			http.SetCookie(w, &http.Cookie{Name: "session", Value: "secret", Path: "/"})
			w.Write([]byte("logged in"))
			return
		}
		c, err := r.Cookie("session")
		if err != nil {
			w.Write([]byte("nobody"))
			return
		}
		w.Write([]byte("session " + c.Value))
	}))
	defer srv.Close()

	first, second := New(t), New(t)
	if body := page(t, first, srv.URL+"/login"); body != "logged in" {
		t.Fatalf("logging in answered %q", body)
	}
	if body := page(t, first, srv.URL+"/"); body != "session secret" {
		t.Fatalf("the first tab lost its cookie: %q", body)
	}
	if body := page(t, second, srv.URL+"/"); body != "nobody" {
		t.Fatalf("the second tab sees the first tab's login: %q", body)
	}
	if chromedp.FromContext(first).Browser != chromedp.FromContext(second).Browser {
		t.Fatal("the two tabs run on two browsers, not on the shared one")
	}
}

// TestNew_Viewport checks the size every tab has, whatever the window
// manager of a headless browser does with new windows.
func TestNew_Viewport(t *testing.T) {
	ctx := New(t)
	c, cancel := context.WithTimeout(ctx, 15*time.Second)
	defer cancel()
	w, err := chromedp.Run(c, chromedp.Evaluate[int](`window.innerWidth`))
	if err != nil {
		t.Fatal(err)
	}
	if w != Width {
		t.Fatalf("window.innerWidth = %d, want %d", w, Width)
	}
}

// page opens url in the tab and returns the text of its body.
func page(t *testing.T, ctx context.Context, url string) string {
	t.Helper()
	c, cancel := context.WithTimeout(ctx, 15*time.Second)
	defer cancel()
	if err := chromedp.Do(c, chromedp.Navigate(url)); err != nil {
		t.Fatalf("open %s: %v", url, err)
	}
	body, err := chromedp.Run(c, chromedp.Evaluate[string](`document.body.textContent`))
	if err != nil {
		t.Fatalf("read %s: %v", url, err)
	}
	return body
}
