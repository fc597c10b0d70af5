package cli

import (
	"context"
	"io"
	"net/http"
	"net/http/cookiejar"
	neturl "net/url"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/bonsai-run/bonsai/internal/gittest"
)

// Issue 27, item 17: the no-key banner appeared only once a project
// existed, and a fresh board said nothing about what to do. Every page
// shows the next steps (add a project, store a key) until they are done.
func TestServe_BannerShowsNextStepsUntilDone(t *testing.T) {
	t.Parallel()
	ta := newTestApp(t)
	ta.env["BONSAI_KEYRING"] = "file"
	repo := gittest.Repo(t, filepath.Join(t.TempDir(), "repo"), nil)
	ta.run("init")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var out syncBuffer
	login, _ := ta.serve(ctx, &out)
	base, token, _ := strings.Cut(login, "/?token=")
	jar, _ := cookiejar.New(nil)
	c := &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	get := func(path string) string {
		t.Helper()
		res, err := c.Get(base + path)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		return string(b)
	}
	steps := func(page string) string {
		return regexp.MustCompile(`(?s)<section class="next-steps".*?</section>`).FindString(page)
	}
	if res, err := c.Get(login); err == nil {
		res.Body.Close()
	}

	// A fresh board: both steps, on every page.
	for _, path := range []string{"/", "/settings"} {
		s := steps(get(path))
		for _, want := range []string{`<li data-kind="project">Add a project`, `<code>bonsai project add &lt;slug&gt; --repo &lt;path or URL&gt;</code>`,
			`<li data-kind="key">Store a key for anthropic: agents use the model anthropic/`, `<code>bonsai credentials set anthropic</code>`,
			`while <code>bonsai up</code>`} {
			if !strings.Contains(s, want) {
				t.Errorf("GET %s: next steps lack %q:\n%s", path, want, s)
			}
		}
	}

	// A project added: the banner names the missing key itself.
	req, _ := http.NewRequest("POST", base+"/api/projects", strings.NewReader(`{"slug":"demo","repo":"`+repo+`"}`))
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Content-Type", "application/json")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusCreated {
		t.Fatalf("POST /api/projects: %d", res.StatusCode)
	}
	page := get("/settings")
	if s := steps(page); s != "" {
		t.Errorf("next steps with a project:\n%s", s)
	}
	if !strings.Contains(page, `id="blockers"`) || !strings.Contains(page, "cannot run") {
		t.Error("the banner does not say the model cannot run without its key")
	}

	// The key stored on the settings page: nothing left to do.
	csrf := regexp.MustCompile(`name="_csrf" value="([^"]+)"`).FindStringSubmatch(page)[1]
	res, err = c.PostForm(base+"/settings", neturl.Values{"_csrf": {csrf}, "_keys": {"1"}, "key-anthropic": {"sk-ant-from-the-page-4242"}})
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	page = get("/")
	if s := steps(page); s != "" || strings.Contains(page, `id="blockers"`) {
		t.Errorf("after the key was stored: next steps %q, blockers %v", s, strings.Contains(page, `id="blockers"`))
	}
}
