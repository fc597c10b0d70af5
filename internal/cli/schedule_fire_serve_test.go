package cli

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/bonsai-run/bonsai/internal/gittest"
)

// TestServe_FireScheduleNow: `bonsai serve` fires a schedule now for the
// Schedules page and the API as `bonsai schedule fire` does: the ticket
// is created at once; a paused schedule is refused with how to resume it.
func TestServe_FireScheduleNow(t *testing.T) {
	t.Parallel()
	ta := newTestApp(t)
	repo := gittest.Repo(t, t.TempDir(), map[string]string{"README.md": "# demo\n"})
	ta.run("project", "add", "demo", "--repo", repo)
	ta.run("schedule", "add", "demo", "deps", "--cron", "0 9 * * 1", "--timezone", "UTC", "--title", "Update the dependencies")
	ta.run("schedule", "add", "demo", "idle", "--cron", "@daily", "--timezone", "UTC", "--title", "Idle")
	ta.run("schedule", "pause", "demo", "idle")

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var out syncBuffer
	url, done := ta.serve(ctx, &out)
	base, token, _ := strings.Cut(url, "/?token=")
	fire := func(name string) (int, string) {
		req, _ := http.NewRequest(http.MethodPost, base+"/api/projects/demo/schedules/"+name+"/fire", nil)
		req.Header.Set("Authorization", "Bearer "+token)
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		return res.StatusCode, string(b)
	}
	if code, body := fire("deps"); code != http.StatusOK || !strings.Contains(body, "demo/deps fired: created demo#1") {
		t.Fatalf("fire deps = %d %s", code, body)
	}
	if show := ta.run("ticket", "show", "demo#1"); !strings.Contains(show, "Update the dependencies") {
		t.Errorf("the fired ticket:\n%s", show)
	}
	if code, body := fire("idle"); code != http.StatusUnprocessableEntity || !strings.Contains(body, "bonsai schedule resume demo idle") {
		t.Errorf("fire idle = %d %s", code, body)
	}
	cancel()
	<-done
}
