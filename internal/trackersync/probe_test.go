package trackersync_test

import (
	"context"
	"strings"
	"testing"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/forge"
	"github.com/bonsai-run/bonsai/internal/forge/forgetest"
	"github.com/bonsai-run/bonsai/internal/trackersync"
)

// doctor's probe of a synced tracker is the sync's conditional list: one
// request answered 304; a revoked token fails naming the fix.
func TestProbeIsOneConditionalRequest(t *testing.T) {
	t.Parallel()
	srv := forgetest.New(t, forge.GitHub)
	repo := srv.GitRepo(t, "acme", "widget", map[string]string{"README.md": "# widget\n"})
	e := newEnv(t, map[string]forge.Host{srv.Host(): {Kind: forge.GitHub}}, map[string]string{"GITHUB_TOKEN": forgetest.Token})
	p := e.project("demo", repo, board.AgentSettings{Tracker: board.TrackerGitHub, TrackerLabels: []string{"bonsai"}})
	e.beat() // no issue yet: nothing to run
	srv.ResetRequests()
	what, err := e.sync.Probe(context.Background(), p)
	reqs := srv.Requests()
	if err != nil || !strings.Contains(what, "as the last sync left it") || len(reqs) != 1 || reqs[0].Status != 304 {
		t.Fatalf("probe = %q, %v; requests %+v", what, err, reqs)
	}
	srv.SetToken("ghp_another_0123456789abcdef")
	_, err = e.sync.Probe(context.Background(), p)
	if err == nil || !strings.Contains(trackersync.Fix(err), "credentials set github") || strings.Contains(err.Error(), forgetest.Token) {
		t.Fatalf("probe with a revoked token: %v (fix %q)", err, trackersync.Fix(err))
	}
}
