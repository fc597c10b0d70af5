package heartbeat

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/workspace"
)

// pushing is a workspace provider whose pushes answer err: the unit tests
// of what a run does with a push's answer (push_test.go pushes to a real
// remote).
type pushing struct {
	Workspaces
	err error
}

func (p *pushing) Push(context.Context, board.Project, *workspace.Workspace) (bool, error) {
	return p.err == nil, p.err
}

// TestPusher notes the first failed push of a streak on the ticket, keeps
// the streak in the state, and forgets it once a push works.
func TestPusher(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	u := newUnit(t)
	ws := &pushing{err: errors.New("remote rejected")}
	l := &ledger{st: ReadState(""), now: time.Now}
	p := pusher{workspaces: ws, ledger: l, notes: u.notes(), log: u.log}
	w := &workspace.Workspace{Branch: "bonsai/demo-1"}
	for range 2 {
		rep := RunReport{Ticket: "demo#1"}
		p.push(ctx, board.Project{Slug: "demo"}, w, &rep)
		if rep.Pushed || rep.PushError != "remote rejected" {
			t.Fatalf("report = %+v, want the push error", rep)
		}
	}
	if n := len(u.comments(t)); n != 1 {
		t.Fatalf("%d comments after two failed pushes, want one for the streak", n)
	}
	if c := u.comments(t)[0]; !strings.Contains(c.Content, "bonsai/demo-1") || !strings.Contains(c.Content, "remote rejected") {
		t.Fatalf("comment = %q", c.Content)
	}
	if f := l.st.Pushes["demo#1"]; f.Failures != 2 {
		t.Fatalf("push failures = %+v, want 2", f)
	}
	ws.err = nil
	rep := RunReport{Ticket: "demo#1"}
	p.push(ctx, board.Project{Slug: "demo"}, w, &rep)
	if !rep.Pushed || rep.PushError != "" || len(l.st.Pushes) != 0 {
		t.Fatalf("after a push that worked: report %+v, failures %v", rep, l.st.Pushes)
	}
}

// publishing is the pull request side of a pr-mode project whose
// publishing answers err.
type publishing struct {
	err       error
	published []string
}

func (p *publishing) UsesPRs(board.Project) bool { return true }
func (p *publishing) Publish(_ context.Context, _ board.Project, t board.Ticket) error {
	p.published = append(p.published, t.Ref().String())
	return p.err
}
func (p *publishing) SyncReviews(context.Context, string) (ReviewSync, error) {
	return ReviewSync{}, nil
}

// TestPublisher opens the pull request of a ticket moved to VERIFICATION
// once its branch is pushed, and reports a failure with the secrets
// redacted.
func TestPublisher(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	u := newUnit(t)
	prs := &publishing{}
	pb := publisher{prs: prs, store: u.db, redact: func(s string) string { return strings.ReplaceAll(s, "tok3n", "[redacted]") }, log: u.log}
	for _, rep := range []RunReport{{MovedTo: board.InProgress}, {MovedTo: board.Verification, PushError: "rejected"}} {
		pb.publish(ctx, board.Project{Slug: "demo"}, u.ticket.Ref(), &rep)
	}
	if len(prs.published) != 0 {
		t.Fatalf("published %v for runs that did not reach VERIFICATION pushed", prs.published)
	}
	prs.err = errors.New("401 for tok3n")
	rep := RunReport{MovedTo: board.Verification}
	pb.publish(ctx, board.Project{Slug: "demo"}, u.ticket.Ref(), &rep)
	if len(prs.published) != 1 || rep.PullRequestError != "401 for [redacted]" {
		t.Fatalf("published %v, error %q; want one attempt, its error redacted", prs.published, rep.PullRequestError)
	}
}
