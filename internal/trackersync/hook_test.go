package trackersync_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/credentials"
	"github.com/bonsai-run/bonsai/internal/forge"
	"github.com/bonsai-run/bonsai/internal/hook"
	"github.com/bonsai-run/bonsai/internal/web"
)

// TestHookSyncsTheTrackerAtOnce: a GitHub issues.labeled delivery to a
// sync hook on the real web server syncs the project's tracker at once,
// with no beat: the labelled issue becomes its ticket.
func TestHookSyncsTheTrackerAtOnce(t *testing.T) {
	t.Parallel()
	f := forgeFake(t, forge.GitHub)
	e := newEnv(t, f.hosts, f.env)
	e.project("demo", f.repo, f.settings)
	keys := credentials.Open(t.TempDir(), credentials.Options{Keyring: credentials.KindFile})
	srv, err := web.New(web.Options{Store: e.db, Token: strings.Repeat("t", 32), HookSecrets: keys, SyncTracker: e.sync.SyncNow})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(srv)
	t.Cleanup(ts.Close)
	const secret = "whsec-for-the-sync-hook"
	sealed, err := keys.Seal(hook.SecretName("gh"), secret)
	if err != nil {
		t.Fatal(err)
	}
	h, err := e.db.CreateHook(context.Background(), board.Hook{Name: "gh", ProjectSlug: "demo", Scheme: board.HookGitHub,
		Secret: sealed, Action: board.HookSync, Events: []string{"issues"}})
	if err != nil {
		t.Fatal(err)
	}
	ref := f.open("Fix the login redirect", "It breaks.\n\n- [ ] lands on next")
	body := fmt.Sprintf(`{"action":"labeled","label":{"name":"bonsai"},"issue":{"number":%s}}`, ref)
	start := time.Now()
	req, _ := http.NewRequest(http.MethodPost, ts.URL+"/hooks/gh", strings.NewReader(body))
	req.Header = hook.Headers(h, secret, "72d3162e-cc78-11e3-81ab-4c9367dc0958", "issues", []byte(body), time.Now())
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	answer, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != http.StatusAccepted {
		t.Fatalf("delivery answered %d: %s", res.StatusCode, answer)
	}
	for {
		if links, _ := e.db.IssueLinks(context.Background(), "demo"); len(links) == 1 {
			tk := e.get(links[0].Ref)
			if tk.Title != "Fix the login redirect" || len(tk.Criteria) != 1 {
				t.Fatalf("ticket %+v", tk)
			}
			break
		}
		time.Sleep(5 * time.Millisecond)
	}
	t.Logf("delivery posted to ticket made by the sync: %s", time.Since(start))
	for {
		ds, err := e.db.HookDeliveries(context.Background(), "gh", 0)
		if err != nil {
			t.Fatal(err)
		}
		if ds[0].Outcome == board.DeliveryDone {
			if !strings.Contains(ds[0].Detail, "synced: 1 new ticket, 0 comments delivered") {
				t.Fatalf("delivery %+v", ds[0])
			}
			break
		}
		time.Sleep(5 * time.Millisecond)
	}
	if runs := e.runner.runs(); runs != 0 {
		t.Fatalf("%d agent runs; a sync runs no agent", runs)
	}
}
