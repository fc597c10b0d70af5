package cli

import (
	"context"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	neturl "net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/bonsai-run/bonsai/internal/notify"
	"github.com/bonsai-run/bonsai/internal/store/sqlite"
)

// TestServe_NotificationsPageSealsSecrets: a webhook added on `bonsai
// serve`'s notifications page is stored with its secret sealed, like one
// added with `bonsai notify add`, and `notify test` still signs with it.
func TestServe_NotificationsPageSealsSecrets(t *testing.T) {
	t.Parallel()
	const secret = "page-signing-secret-4242"
	var mu sync.Mutex
	var sigs []bool
	hook := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		mu.Lock()
		sigs = append(sigs, r.Header.Get(notify.SignatureHeader) == notify.Sign(secret, body))
		mu.Unlock()
	}))
	defer hook.Close()

	ta := newTestApp(t)
	ta.env["BONSAI_KEYRING"] = "file"
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var out syncBuffer
	login, _ := ta.serve(ctx, &out)
	jar, _ := cookiejar.New(nil)
	c := &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	res, err := c.Get(login)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	base := strings.SplitN(login, "/?", 2)[0]
	res, err = c.Get(base + "/settings/notifications")
	if err != nil {
		t.Fatal(err)
	}
	page, _ := io.ReadAll(res.Body)
	res.Body.Close()
	m := regexp.MustCompile(`name="_csrf" value="([^"]+)"`).FindSubmatch(page)
	if m == nil {
		t.Fatalf("no CSRF token on the notifications page:\n%s", page)
	}
	form := neturl.Values{"_csrf": {string(m[1])}, "name": {"hook"}, "kind": {"webhook"},
		"url": {hook.URL + "/bonsai"}, "secret": {secret}, "skip-test": {"1"}}
	res, err = c.PostForm(base+"/settings/notifications", form)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != http.StatusSeeOther {
		t.Fatalf("add: HTTP %d\n%s", res.StatusCode, body)
	}

	data := ta.env["BONSAI_DATA_DIR"]
	db, err := sqlite.Open(context.Background(), filepath.Join(data, "bonsai.db"))
	if err != nil {
		t.Fatal(err)
	}
	cs, err := db.Channels(context.Background())
	db.Close()
	if err != nil || len(cs) != 1 {
		t.Fatalf("channels: %v, %v", cs, err)
	}
	if v := cs[0].Settings[notify.KeySecret]; !strings.HasPrefix(v, "sealed:v1:") || strings.Contains(v, secret) {
		t.Errorf("the row's secret is %q, want it sealed", v)
	}
	for _, f := range []string{"bonsai.db", "bonsai.db-wal"} {
		if b, err := os.ReadFile(filepath.Join(data, f)); err == nil && strings.Contains(string(b), secret) {
			t.Errorf("%s holds the secret", f)
		}
	}

	ta.run("notify", "test", "hook")
	mu.Lock()
	defer mu.Unlock()
	if len(sigs) != 1 || !sigs[0] {
		t.Errorf("the test notification's signature checks: %v, want [true]", sigs)
	}
}
