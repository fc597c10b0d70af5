package cli

import (
	"context"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/config"
	"github.com/bonsai-run/bonsai/internal/executor"
	"github.com/bonsai-run/bonsai/internal/executor/local"
	"github.com/bonsai-run/bonsai/internal/land"
	"github.com/bonsai-run/bonsai/internal/store"
	"github.com/bonsai-run/bonsai/internal/workspace"
)

// landPullRequests is the forge side of the pr mode given to every Lander;
// nil until the forge support is wired (land.PullRequests).
var landPullRequests func(a *app) land.PullRequests

// newLander returns the Lander that approvals go through: its merges run
// git on the host in the data directory's clones, with the credentials
// the heartbeat's fetch and push get (never the agent's environment).
func newLander(a *app, st store.Store) (*land.Lander, error) {
	d, err := a.dataDir()
	if err != nil {
		return nil, err
	}
	opts := workspace.Options{
		Projects: d.Projects(), Worktrees: d.Worktrees(),
		Open: func(root string) (executor.Executor, error) {
			return local.New(root, local.Options{})
		},
		RemoteEnv: a.remoteEnv(),
	}
	if cfg, err := a.config(); err == nil {
		opts.AgentIdentity = agentIdentity(cfg)
	}
	// On a board several machines share, the work to land is the pushed
	// ticket branch, which this machine's copy may be behind.
	if u, err := a.storeURL(); err == nil && u != "" {
		opts.SharedBoard = true
	}
	ws, err := workspace.New(opts)
	if err != nil {
		return nil, err
	}
	var prs land.PullRequests
	if landPullRequests != nil {
		prs = landPullRequests(a)
	}
	return land.New(land.Options{Store: st, Git: ws, PullRequests: prs, Now: a.now}), nil
}

// approver is the person approving from this process: the board records
// them as a.author(); the commits that land their approval are theirs
// (land.PersonFor: config.json's git.personName and git.personEmail, else
// their git identity for project p's repository).
func (a *app) approver(p board.Project) land.Approval {
	var configured land.Person
	if cfg, err := a.config(); err == nil {
		configured = land.Person{Name: cfg.Git.PersonName, Email: cfg.Git.PersonEmail}
	}
	return land.Approval{Author: a.author(), Person: land.PersonFor(configured, p)}
}

// approve lands ticket ref as the approving person, with an optional note.
func (a *app) approve(ctx context.Context, ref board.Ref, note string, again bool) (land.Result, error) {
	st, err := a.openStore(ctx)
	if err != nil {
		return land.Result{}, err
	}
	return a.landAs(ctx, st, ref, note, again)
}

// webApprove is the web UI's approval: the Lander, as the person running
// the server (a.approver).
func webApprove(a *app, st store.Store) func(ctx context.Context, ref board.Ref, note string) (board.Ticket, error) {
	return func(ctx context.Context, ref board.Ref, note string) (board.Ticket, error) {
		r, err := a.landAs(ctx, st, ref, note, false)
		return r.Ticket, err
	}
}

// landAs approves ticket ref on st as a.approver, or with again lands an
// approved ticket's work again.
func (a *app) landAs(ctx context.Context, st store.Store, ref board.Ref, note string, again bool) (land.Result, error) {
	l, err := newLander(a, st)
	if err != nil {
		return land.Result{}, err
	}
	p, err := st.Project(ctx, ref.Project)
	if err != nil {
		return land.Result{}, err
	}
	ap := a.approver(p)
	ap.Ref, ap.Note = ref, note
	if again {
		return l.Land(ctx, ap)
	}
	return l.Approve(ctx, ap)
}

// agentIdentity is who the agents' commits are by: config.json's
// git.authorName and git.authorEmail, or "Bonsai agent" at a
// non-routable address.
func agentIdentity(cfg config.Config) workspace.Identity {
	name, email := cfg.Git.Agent()
	return workspace.Identity{Name: name, Email: email}
}
