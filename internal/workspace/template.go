package workspace

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
	"time"
)

// A new clone gets a copy of git's template directory: with none chosen,
// git's own (sample hooks, none of them active, a description for
// gitweb, an info/exclude of comments and an empty branches/), some
// twenty files and directories that nothing of Bonsai's reads. Each is a
// new inode, which on a busy file system costs more than the rest of the
// clone's work for a small repository (issue 28). A clone therefore
// skips them (--template=) when neither git's config nor the clone's
// environment chooses a template directory; a chosen one (a user's
// init.templateDir with hooks of their own) is copied as before.

// templateAsk is how long the answer of templateCheck is kept: a beat
// cloning hundreds of projects asks git once, and a config changed since
// is seen within it.
const templateAsk = time.Minute

// templateCheck remembers whether git chooses a template directory.
type templateCheck struct {
	mu     sync.Mutex
	at     time.Time // when git was last asked; zero: never
	chosen bool
}

// cloneTemplate returns the clone's option that skips git's templates,
// or none when a template directory is chosen (or git could not say).
// Chosen is GIT_TEMPLATE_DIR or a GIT_CONFIG_KEY_n of init.templateDir
// in the clone's environment, or init.templateDir in git's config as
// `git config --get` reads it in the clone's directory, with the clone's
// choice of config files (GIT_CONFIG_GLOBAL, GIT_CONFIG_SYSTEM,
// GIT_CONFIG_NOSYSTEM) but none of its credentials. The answer only says
// whether to skip; no path is taken from it.
func (p *Provider) cloneTemplate(ctx context.Context, g *gitRunner) []string {
	var files []string
	for _, kv := range g.remoteEnv {
		name, value, _ := strings.Cut(kv, "=")
		switch {
		case name == "GIT_TEMPLATE_DIR",
			strings.HasPrefix(name, "GIT_CONFIG_KEY_") && strings.EqualFold(strings.TrimSpace(value), "init.templateDir"):
			return nil
		case name == "GIT_CONFIG_GLOBAL", name == "GIT_CONFIG_SYSTEM", name == "GIT_CONFIG_NOSYSTEM":
			files = append(files, kv)
		}
	}
	p.tmpl.mu.Lock()
	defer p.tmpl.mu.Unlock()
	if p.tmpl.at.IsZero() || time.Since(p.tmpl.at) > templateAsk {
		p.tmpl.chosen = templateChosen(ctx, g.withEnv(append(slices.Clone(g.localEnv), files...)))
		p.tmpl.at = time.Now()
	}
	if p.tmpl.chosen {
		return nil
	}
	return []string{"--template="}
}

// templateChosen asks git whether its config names a template directory:
// exit status 1 without a message is "not set"; anything else (a value,
// an error) counts as chosen, which keeps git's own behaviour.
func templateChosen(ctx context.Context, g *gitRunner) bool {
	_, err := g.run(ctx, ".", "config", "--get", "init.templateDir")
	var ge *GitError
	return !errors.As(err, &ge) || ge.Code != 1 || strings.TrimSpace(ge.Stderr) != ""
}
