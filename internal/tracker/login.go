package tracker

import (
	"cmp"
	"context"

	"github.com/bonsai-run/bonsai/internal/forge"
)

// Identifier is a tracker that can say whose token it holds: the login
// that Options.Login takes, so that only that account's marked comments
// are Bonsai's.
type Identifier interface {
	// Self returns the token's login (the forges' login or username).
	Self(ctx context.Context) (string, error)
}

var _ Identifier = (*forgeTracker)(nil)

// Self reads GET /user: GitHub's and Gitea's login, GitLab's username
// (Gitea asks the read:user scope; without it the error says so).
func (t *forgeTracker) Self(ctx context.Context) (string, error) {
	var u struct {
		Login    string `json:"login"`
		Username string `json:"username"`
	}
	if _, err := t.core.Do(ctx, forge.Call{Op: "read the token's user", Method: "GET", Path: "/user", Out: &u}); err != nil {
		return "", fromForge(t.kind, err)
	}
	return cmp.Or(u.Login, u.Username), nil
}
