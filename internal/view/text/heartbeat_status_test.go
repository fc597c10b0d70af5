package text

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/bonsai-run/bonsai/internal/heartbeat"
)

func TestHeartbeatStatus(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "heartbeat.json")
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	var out bytes.Buffer
	WriteHeartbeatStatus(&out, NewHeartbeatStatus(heartbeat.ReadState(path), now), now)
	if !strings.Contains(out.String(), "no beat yet") {
		t.Errorf("without heartbeat.json:\n%s", out.String())
	}
	state := `{"lastBeat":{"skipped":false,"interrupted":1,"removed":0,"startedAt":"2026-01-02T03:00:00Z","finishedAt":"2026-01-02T03:00:02Z",
	  "runs":[{"ticket":"demo#1","class":"in progress","task":"implement","status":"completed"},
	          {"ticket":"web#2","class":"waiting for research","task":"research","skipped":"no API key for openai: set OPENAI_API_KEY"}],
	  "reviews":{"open":2,"unchanged":1,"merged":0,"returned":0,"closed":0,"checksFailed":0,"errors":1,
	             "failures":[{"ticket":"demo#1","error":"gitea: read reviews of pull request #1: 403 Forbidden"}]}},
	  "paused":{"anthropic":"2026-01-02T04:00:00Z","openai":"2026-01-01T00:00:00Z"},
	  "repoBackoff":{"web":{"repo":"git@example.com:x/web.git","failures":3,"until":"2026-01-02T03:10:00Z","error":"clone git@example.com:x/web.git: exit status 128"},
	                 "old":{"repo":"/gone","failures":1,"until":"2026-01-02T03:00:00Z","error":"clone /gone"}}}`
	if err := os.WriteFile(path, []byte(state), 0o644); err != nil {
		t.Fatal(err)
	}
	v := NewHeartbeatStatus(heartbeat.ReadState(path), now)
	if len(v.Paused) != 1 || v.Paused[0].Provider != "anthropic" {
		t.Errorf("paused = %+v; an expired pause must be left out", v.Paused)
	}
	if len(v.RepoBackoff) != 1 || v.RepoBackoff[0].Project != "web" || v.RepoBackoff[0].Failures != 3 {
		t.Errorf("repo backoff = %+v; an expired one must be left out", v.RepoBackoff)
	}
	f := v.Facts()
	if len(f.Paused) != 1 || f.Paused[0].Provider != "anthropic" || len(f.Repos) != 1 || f.Repos[0].Project != "web" ||
		len(f.Skips) != 1 || f.Skips[0].Ticket != "web#2" || !strings.Contains(f.Skips[0].Reason, "OPENAI_API_KEY") ||
		len(f.Unfollowed) != 1 || f.Unfollowed[0].Ticket != "demo#1" || !strings.Contains(f.Unfollowed[0].Reason, "403 Forbidden") {
		t.Errorf("facts = %+v", f)
	}
	out.Reset()
	WriteHeartbeatStatus(&out, v, now)
	for _, want := range []string{"last beat 4 minutes ago, took 2s: 1 run(s), 1 skipped, 1 interrupted",
		"web#2 skipped: no API key for openai: set OPENAI_API_KEY", "provider anthropic paused until",
		"project web waits until", "its repository failed 3 time(s) in a row: clone git@example.com:x/web.git: exit status 128"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
}
