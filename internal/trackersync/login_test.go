package trackersync_test

import (
	"context"
	"strings"
	"testing"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/forge"
	"github.com/bonsai-run/bonsai/internal/forge/forgetest"
	"github.com/bonsai-run/bonsai/internal/heartbeat"
	"github.com/bonsai-run/bonsai/internal/tracker"
	"github.com/bonsai-run/bonsai/internal/tracker/trackertest"
)

// TestTheTokensLoginTellsOurComments: the sync reads the token's own
// login once (GET /user) and keeps it, so a maintainer's comment that
// copies Bonsai's marker is still a person's comment and reaches the
// ticket; a later beat with the same token does not ask again.
func TestTheTokensLoginTellsOurComments(t *testing.T) {
	t.Parallel()
	for _, k := range []forge.Kind{forge.GitHub, forge.GitLab, forge.Gitea} {
		t.Run(string(k), func(t *testing.T) {
			t.Parallel()
			srv := forgetest.New(t, k)
			if k == forge.Gitea {
				srv.SetScopes("write:issue", "read:repository", "read:user")
			}
			repo := srv.GitRepo(t, "acme", "widget", map[string]string{"README.md": "# widget\n"})
			srv.Outsider("mallory")
			vars := map[string]string{}
			for _, v := range forge.TokenEnv(k) {
				vars[v] = forgetest.Token
			}
			e := newEnv(t, map[string]forge.Host{srv.Host(): {Kind: k}}, vars)
			e.project("demo", repo, board.AgentSettings{Tracker: board.TrackerKind(k), TrackerLabels: []string{"bonsai"}})
			// An outsider's issue waits in BACKLOG: no agent runs.
			n := srv.OpenIssue("acme", "widget", "mallory", "Fix the login", "It breaks.", "bonsai")
			if rep := e.beat(); len(rep.Trackers.Failures) != 0 || rep.Trackers.Created != 1 {
				t.Fatalf("first beat %+v", rep.Trackers)
			}
			lim, err := e.db.TrackerLimit(context.Background(), "demo")
			if err != nil || lim.Login != "bonsai" || lim.TokenSum == "" || strings.Contains(lim.TokenSum, forgetest.Token) {
				t.Fatalf("kept %+v, %v; want the token's login bonsai", lim, err)
			}
			srv.CommentIssue("acme", "widget", n, "carol", "Use the new flow.\n\n"+tracker.Marker)
			srv.ResetRequests()
			if rep := e.beat(); len(rep.Trackers.Failures) != 0 || rep.Trackers.Delivered != 1 {
				t.Fatalf("second beat %+v", rep.Trackers)
			}
			for _, r := range srv.Requests() {
				if strings.HasSuffix(r.Path, "/user") {
					t.Errorf("the second beat asked %s again", r.Path)
				}
			}
			var got bool
			for _, c := range e.comments(board.Ref{Project: "demo", Number: 1}) {
				got = got || c.AuthorType == board.Human && strings.Contains(c.Content, "Use the new flow.")
			}
			if !got {
				t.Fatalf("carol's comment with a copied marker did not reach the ticket: %+v", e.comments(board.Ref{Project: "demo", Number: 1}))
			}
		})
	}
}

// TestTheTokensLoginOnLinearAndJira: the key's user (Linear's viewer)
// and the token's account (Jira's /myself) are read once and kept; on
// Linear a member's comment copying the marker reaches the ticket.
func TestTheTokensLoginOnLinearAndJira(t *testing.T) {
	t.Parallel()
	for name, mk := range map[string]func(*testing.T) fakeTracker{"linear": linearFake, "jira": jiraFake} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			f := mk(t)
			e := newEnv(t, f.hosts, f.env)
			e.project("demo", f.repo, f.settings)
			done := func(context.Context, heartbeat.Job) heartbeat.Outcome {
				return heartbeat.Outcome{Status: board.RunCompleted}
			}
			e.runner.steps = append(e.runner.steps, done, done)
			ref := f.open("Fix the login", "It breaks.")
			if rep := e.beat(); len(rep.Trackers.Failures) != 0 || rep.Trackers.Created != 1 {
				t.Fatalf("first beat %+v", rep.Trackers)
			}
			want := map[string]string{"linear": "u-bonsai", "jira": trackertest.JiraAccount}[name]
			if lim, err := e.db.TrackerLimit(context.Background(), "demo"); err != nil || lim.Login != want {
				t.Fatalf("kept %+v, %v; want the login %s", lim, err, want)
			}
			f.answer(ref, "Use the new flow.\n\n"+tracker.Marker)
			// Jira marks Bonsai's comments with a property, not the text:
			// there the copy is a person's whatever the login.
			if rep := e.beat(); len(rep.Trackers.Failures) != 0 || rep.Trackers.Delivered != 1 {
				t.Fatalf("second beat %+v", rep.Trackers)
			}
		})
	}
}
