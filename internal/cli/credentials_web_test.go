package cli

import (
	"context"
	"io"
	"net/http"
	"net/http/cookiejar"
	neturl "net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/bonsai-run/bonsai/internal/gittest"
)

// TestServe_SettingsPageStoresKeys: a key stored through `bonsai serve`'s
// settings page is in the same credentials.json that `credentials list`
// reads, and the page shows its source; a key set in the server's
// environment shows as such.
func TestServe_SettingsPageStoresKeys(t *testing.T) {
	t.Parallel()
	ta := newTestApp(t)
	ta.env["BONSAI_KEYRING"] = "file"
	ta.env["OPENAI_API_KEY"] = "sk-openai-from-env-0000"
	repo := t.TempDir()
	gittest.Run(t, repo, "init", "-q", "-b", "main")
	ta.run("project", "add", "demo", "--repo", repo)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var out syncBuffer
	login, _ := ta.serve(ctx, &out)
	jar, _ := cookiejar.New(nil)
	c := &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	get := func(path string) string {
		t.Helper()
		res, err := c.Get(path)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		return string(b)
	}
	get(login)
	base := strings.SplitN(login, "/?", 2)[0]
	page := get(base + "/settings")
	m := regexp.MustCompile(`name="_csrf" value="([^"]+)"`).FindStringSubmatch(page)
	if m == nil {
		t.Fatalf("no CSRF token on the settings page:\n%s", page)
	}
	if !strings.Contains(page, `<code>OPENAI_API_KEY</code> <span class="badge ok">set in the environment</span>`) {
		t.Fatal("the settings page does not show the environment's openai key")
	}
	form := neturl.Values{"_csrf": {m[1]}, "_keys": {"1"}, "key-anthropic": {"sk-ant-from-the-page-4242"}}
	res, err := c.PostForm(base+"/settings", form)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusSeeOther {
		t.Fatalf("POST /settings: %d", res.StatusCode)
	}
	if list := ta.run("credentials", "list"); !regexp.MustCompile(`(?m)^anthropic +stored +…4242 `).MatchString(list) {
		t.Fatalf("credentials list after the page stored a key:\n%s", list)
	}
	page = get(base + "/settings")
	if !strings.Contains(page, `<span class="badge ok">stored ••••4242</span>`) || strings.Contains(page, "sk-ant-from-the-page") {
		t.Fatal("the settings page does not show the stored key as stored ••••4242, or shows the key")
	}
	// The server's own model check sees the stored key at once.
	if status := get(base + "/api/status"); !regexp.MustCompile(`"keySource": ?"stored"`).MatchString(status) || strings.Contains(status, "no API key") {
		t.Fatalf("the server still misses the anthropic key:\n%s", status)
	}
}
