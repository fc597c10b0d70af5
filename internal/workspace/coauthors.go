package workspace

import (
	"context"
	"fmt"
	"strings"
	"unicode"

	"github.com/bonsai-run/bonsai/internal/board"
)

// maxCoAuthors bounds the trailers CoAuthors returns.
const maxCoAuthors = 20

// CoAuthors returns the distinct "Co-authored-by:" trailers that name the
// agent on the reviewed commits base..tip of a project (read in its review
// repository, see Review), oldest first, as "Name <email>": the models the
// commit-msg hook named (NameModel). A squash commit keeps them, so that
// history still says which models wrote the work.
//
// The commit messages are the agent's to write, so only trailers at the
// agent's own address (the runtime's setting, never the clone's) whose
// name is a plain model id are kept; anything else in them is ignored.
func (p *Provider) CoAuthors(ctx context.Context, proj board.Project, base, tip string) ([]string, error) {
	out, err := p.coAuthors(ctx, proj, base, tip)
	return out, p.hidePaths(err)
}

func (p *Provider) coAuthors(ctx context.Context, proj board.Project, base, tip string) ([]string, error) {
	if !isHex(base) || !isHex(tip) {
		return nil, fmt.Errorf("co-authors: %q..%q are not commit ids", base, tip)
	}
	g, done, err := p.runtime(ctx)
	if err != nil {
		return nil, err
	}
	defer done()
	r, err := p.openReview(ctx, g, proj)
	if err != nil {
		return nil, err
	}
	if r.commit(ctx, base) != base || r.commit(ctx, tip) != tip {
		return nil, fmt.Errorf("the reviewed commits %.12s..%.12s are not on this machine", base, tip)
	}
	log, err := r.git(ctx, "log", "--reverse", "--no-show-signature",
		"--format=%(trailers:key=Co-authored-by,valueonly,unfold)", base+".."+tip, "--")
	if err != nil {
		return nil, fmt.Errorf("co-authors: %w", err)
	}
	email := p.opts.AgentIdentity.Email
	if email == "" {
		email = botEmail
	}
	return agentTrailers(log, email), nil
}

// agentTrailers keeps the lines of log that are "<model id> <email>",
// once each, in order, at most maxCoAuthors.
func agentTrailers(log, email string) []string {
	var out []string
	seen := map[string]bool{}
	for _, line := range strings.Split(log, "\n") {
		line = strings.TrimSpace(line)
		name, ok := strings.CutSuffix(line, " <"+email+">")
		if !ok || seen[line] || name == "" || len(name) > 200 || board.ValidateModelID(name) != nil ||
			strings.ContainsAny(name, "<>\"") || strings.ContainsFunc(name, unicode.IsControl) {
			continue
		}
		seen[line] = true
		out = append(out, line)
		if len(out) == maxCoAuthors {
			break
		}
	}
	return out
}

// isHex reports whether s is a non-empty lowercase hexadecimal string.
func isHex(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range s {
		if (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}
