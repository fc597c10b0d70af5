package workspace

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strconv"
	"time"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/executor"
)

// Remote is the name of the remote every clone has: the project's repo.
const Remote = "origin"

// Workspace is one ticket's worktree.
type Workspace struct {
	// Root is the host path of the worktree. Wiring code only: never show it
	// to the model.
	Root string
	// Clone is the host path of the project's clone, projects/<slug>.
	// Wiring code only, like Root.
	Clone string
	// Exec runs commands and file operations inside Root, for the agent.
	Exec executor.Executor
	// Branch is the ticket's branch, e.g. "bonsai/demo/12-fix-login".
	Branch string
	// Base is the ref the branch started from, e.g. "origin/main".
	Base string
	// Remote is the remote the branch is pushed to, empty for none.
	Remote string
	// Created reports whether this call created the worktree (false when a
	// previous beat's worktree was reused).
	Created bool
	// Recreated reports whether the ticket named a branch that no longer
	// existed, so a new one was started from the default branch.
	Recreated bool
	// Moved, on a shared board, says how the worktree was moved to the
	// branch another machine pushed (Prepare); nil when it was not.
	Moved *Moved
	// Head is the commit Branch pointed at when Prepare returned, as it
	// read or made it; "" when it cannot tell (Checkout's workspace).
	Head string
	// settled is the commit at which Branch has nothing for Push to
	// push: Head when Prepare found the branch at the default branch's
	// commit or at the remote branch's, both as fetched before the agent
	// ran, or the commit Push last pushed; "" when the branch may hold
	// commits of its own (Push then reads and counts it in full).
	settled string
	// start is the commit checkOut starts Branch at, in the worktree's
	// own executor, when Prepare found no such branch ("" when it is
	// there: checkOut resets the worktree to it).
	start string
	// remove is a directory Close deletes (Checkout's).
	remove string
}

// Close releases the workspace's executor, and deletes a checkout
// (Checkout) with what was left in it.
func (w *Workspace) Close() error {
	var err error
	if c, ok := w.Exec.(io.Closer); ok {
		err = c.Close()
	}
	if w.remove != "" {
		removeTree(w.remove)
	}
	return err
}

// Opener opens an executor rooted at a host directory.
type Opener func(root string) (executor.Executor, error)

// AgentOpener opens the executor of a ticket's worktree for project p:
// root is the worktree, clone the project's clone (its .git holds the
// worktree's objects and refs), or "" for a checkout with no git
// directory (Checkout's). It is where a project's sandbox setting
// takes effect; an error wrapping executor.ErrSandboxUnavailable means the
// project requires a sandbox that cannot start here.
type AgentOpener func(p board.Project, root, clone string) (executor.Executor, error)

// Options configures a Provider.
type Options struct {
	// Projects is the host directory holding one clone per project.
	Projects string
	// Worktrees is the host directory holding one worktree per ticket.
	Worktrees string
	// Open opens the executor rooted at Projects that the runtime's own
	// git commands (clone, fetch, worktree, push) run in, on the host: they
	// need the network and RemoteEnv's credentials.
	Open Opener
	// OpenAgent opens the executor of each worktree, which the agent's
	// commands and the project's verify command run in; nil means Open.
	OpenAgent AgentOpener
	// RemoteEnv holds KEY=VALUE pairs (credentials, SSH agent socket) given
	// to clone, fetch and push only, never to the agent.
	RemoteEnv []string
	// NetTimeout bounds clone, fetch and push; zero means 10 minutes.
	NetTimeout time.Duration
	// AgentIdentity is the author and committer of the agents' commits
	// (config.json's git.authorName and git.authorEmail), set in each
	// clone's config. Empty keeps a clone's identity, or gives a new one
	// the user's.
	AgentIdentity Identity
	// CloneProgress, when not nil, receives git's progress while a
	// project is cloned (`git clone --progress`): a terminal, so that a
	// large repository does not look stuck. nil clones quietly.
	CloneProgress io.Writer
	// SharedBoard says several machines work the board's tickets, each
	// with its own clones and worktrees: Prepare starts from the branch
	// pushed to the remote when another machine worked the ticket since
	// this one, and Push refuses to replace a push this clone has not
	// seen.
	SharedBoard bool
}

// Provider resolves projects and tickets to workspaces.
type Provider struct {
	opts Options
	tmpl templateCheck // whether clones may skip git's templates (template.go)
}

// New returns a Provider.
func New(opts Options) (*Provider, error) {
	if opts.Projects == "" || opts.Worktrees == "" || opts.Open == nil {
		return nil, errors.New("workspace: Projects, Worktrees and Open are required")
	}
	if opts.OpenAgent == nil {
		open := opts.Open
		opts.OpenAgent = func(_ board.Project, root, _ string) (executor.Executor, error) { return open(root) }
	}
	if opts.NetTimeout == 0 {
		opts.NetTimeout = 10 * time.Minute
	}
	return &Provider{opts: opts}, nil
}

// ClonePath returns the host path of a project's clone.
func (p *Provider) ClonePath(slug string) string { return filepath.Join(p.opts.Projects, slug) }

// WorktreePath returns the host path of a ticket's worktree.
func (p *Provider) WorktreePath(slug string, number int) string {
	return filepath.Join(p.opts.Worktrees, slug, strconv.Itoa(number))
}

// runtime opens the executor the runtime's own git commands run in.
func (p *Provider) runtime(ctx context.Context) (*gitRunner, func(), error) {
	ex, err := p.opts.Open(p.opts.Projects)
	if err != nil {
		return nil, nil, fmt.Errorf("open projects directory: %w", err)
	}
	closeFn := func() {
		if c, ok := ex.(io.Closer); ok {
			c.Close()
		}
	}
	return &gitRunner{ex: ex, projects: p.opts.Projects, remoteEnv: p.opts.RemoteEnv, netTimeout: p.opts.NetTimeout, progress: p.opts.CloneProgress}, closeFn, nil
}
