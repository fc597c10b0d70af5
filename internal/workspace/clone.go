package workspace

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/bonsai-run/bonsai/internal/board"
)

// Fallback identity for commits in a clone whose user has none configured.
const (
	botName  = "Bonsai"
	botEmail = "bonsai@localhost"
)

// ensureClone clones the project's repo into projects/<slug> unless a clone
// is there, points origin at the project's current repo, and fetches; it
// returns the runner of the host's git commands in the checked clone.
func (p *Provider) ensureClone(ctx context.Context, g *gitRunner, proj board.Project) (*cloneGit, error) {
	if err := checkRepo(proj.Repo); err != nil {
		return nil, err
	}
	slug := proj.Slug
	clone := p.ClonePath(slug)
	repo, env := remoteURL(proj.Repo, g.remoteEnv)
	g = g.withRemoteEnv(env)
	fresh := false
	if _, err := os.Stat(filepath.Join(clone, ".git")); err != nil {
		// A directory without .git is what a failed clone leaves behind.
		if err := os.RemoveAll(clone); err != nil {
			return nil, fmt.Errorf("clone %s: %w", repo, err)
		}
		args := append(p.cloneTemplate(ctx, g), p.cloneIdentity()...)
		if _, err := g.clone(ctx, append(args, "--origin", Remote, "--", repo, slug)...); err != nil {
			os.RemoveAll(clone)
			return nil, fmt.Errorf("clone %s: %w", repo, err)
		}
		fresh = true
	}
	c, err := g.openClone(ctx, slug, repo)
	if err != nil {
		return nil, err
	}
	if c.conf.any("remote."+Remote+".url") != repo {
		// The project's repo was edited since the clone was made (or the
		// clone recorded credentials before they were kept out of it).
		if _, err := c.run(ctx, "remote", "set-url", Remote, repo); err != nil {
			return nil, fmt.Errorf("point %s at %s: %w", Remote, repo, err)
		}
	}
	if err := p.ensureIdentity(ctx, c); err != nil {
		return nil, err
	}
	if fresh {
		// The clone fetched every branch into the same refs a moment
		// ago: fetching again would find nothing new (a first run of
		// every project, as in bench/heartbeat -scale, paid for it).
		return c, nil
	}
	// The URL and refspec are given, not the remote's name, so that the
	// remote's settings in the clone's config are not read; submodules,
	// whose own config is not checked, and auto maintenance are left out.
	if _, err := c.remote(ctx, "fetch", "--quiet", "--prune", "--no-recurse-submodules", "--no-auto-maintenance",
		"--", repo, "+refs/heads/*:refs/remotes/"+Remote+"/*"); err != nil {
		return nil, fmt.Errorf("fetch %s: %w", repo, err)
	}
	return c, nil
}

// ensureIdentity gives the clone a committer identity in its own config,
// which the agent's commits in every worktree use (in the sandbox too,
// which hides the user's home and so ~/.gitconfig): Options.AgentIdentity
// when it is set, kept current with it; else, in a clone that has none,
// the user's, from git's global or system config, or Bonsai's.
func (p *Provider) ensureIdentity(ctx context.Context, c *cloneGit) error {
	want := p.opts.AgentIdentity
	if want.Email == "" {
		if c.conf.local("user.email") != "" {
			return nil
		}
		want = Identity{Name: botName, Email: botEmail}
		if e := c.conf.any("user.email"); e != "" {
			want.Email = e
			if n := c.conf.any("user.name"); n != "" {
				want.Name = n
			}
		}
	}
	// The values are compared with the config openClone read (the
	// agent's commands not running); only a differing one is written.
	for _, kv := range [][2]string{{"user.name", want.Name}, {"user.email", want.Email}} {
		if c.conf.local(kv[0]) == kv[1] {
			continue
		}
		if _, err := c.run(ctx, "config", "--local", kv[0], kv[1]); err != nil {
			return fmt.Errorf("set git identity: %w", err)
		}
	}
	return nil
}

// cloneIdentity is the clone command's settings of Options.AgentIdentity,
// so that a new clone has it from the start and ensureIdentity writes
// nothing; none when it is not set (ensureIdentity then reads the user's).
func (p *Provider) cloneIdentity() []string {
	id := p.opts.AgentIdentity
	if id.Email == "" {
		return nil
	}
	args := []string{"--config", "user.email=" + id.Email}
	if id.Name != "" {
		args = append(args, "--config", "user.name="+id.Name)
	}
	return args
}
