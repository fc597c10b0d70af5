package tracker

import (
	"cmp"
	"context"
	"net/http"

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

var (
	_ Identifier = (*linear)(nil)
	_ Identifier = (*jira)(nil)
)

const lnViewerQuery = `query BonsaiViewer { viewer { id } }`

// Self reads Linear's viewer: the key's user id, as comments' AuthorID.
func (l *linear) Self(ctx context.Context) (string, error) {
	var out struct {
		Viewer struct {
			ID string `json:"id"`
		} `json:"viewer"`
	}
	if err := l.gql(ctx, "read the key's user", lnViewerQuery, nil, &out); err != nil {
		return "", err
	}
	return out.Viewer.ID, nil
}

// Self reads Jira's /myself: the token's account id, as comments'
// AuthorID.
func (j *jira) Self(ctx context.Context) (string, error) {
	var out struct {
		AccountID string `json:"accountId"`
	}
	if _, err := j.c.do(ctx, request{op: "read the token's account", method: http.MethodGet, path: "/rest/api/3/myself", out: &out}); err != nil {
		return "", err
	}
	return out.AccountID, nil
}
