package forge

import (
	"context"
	"net/http"
	"net/url"
)

// Access is what a forge says of a person's right to push to the
// repository.
type Access int

// The answers.
const (
	// AccessUnknown: the forge would not say (a Gitea token that is
	// neither admin nor allowed to read the assignees).
	AccessUnknown Access = iota
	// AccessWrite: the person may push (GitHub write, maintain or admin;
	// GitLab Developer or above; Gitea write, admin or owner).
	AccessWrite
	// AccessRead: the person may not push.
	AccessRead
)

// Writers decides, for each of logins, whether they may push to the
// repository. ids are GitLab's user ids by login (GitLab asks by id);
// others ignore it. Costs, in requests: GitHub one per login
// (/collaborators/{login}/permission); GitLab one per login
// (/members/all/{id}); Gitea one per login while the token may read
// others' permissions, else one for all (/assignees), as the pull
// request reviews decide it (gitea_access.go).
func (c *Core) Writers(ctx context.Context, op string, logins []string, ids map[string]int64) (map[string]Access, error) {
	out := map[string]Access{}
	switch c.a.repo.Kind {
	case GitHub:
		for _, name := range logins {
			a, err := c.githubAccess(ctx, op, name)
			if err != nil {
				return nil, err
			}
			out[name] = a
		}
	case GitLab:
		users := map[string]int64{}
		for _, name := range logins {
			out[name] = AccessRead
			id := ids[name]
			if id == 0 {
				var err error
				if id, err = c.gitlabUserID(ctx, op, name); err != nil {
					return nil, err
				}
			}
			if id != 0 {
				users[name] = id
			}
		}
		in, err := (&gitlab{c.a}).insiders(ctx, op, users)
		if err != nil {
			return nil, err
		}
		for name, ok := range in {
			if ok {
				out[name] = AccessWrite
			}
		}
	default:
		acc := c.g.access(op)
		for _, name := range logins {
			if err := acc.decide(ctx, name); err != nil {
				return nil, err
			}
			switch acc.known[name] {
			case accessInsider:
				out[name] = AccessWrite
			case accessOutsider:
				out[name] = AccessRead
			default:
				out[name] = AccessUnknown
			}
		}
	}
	return out, nil
}

// githubAccess reads a person's permission on a GitHub repository:
// admin and write (maintain reads as write) may push; read, triage and
// none may not; a login GitHub does not know (404) may not.
func (c *Core) githubAccess(ctx context.Context, op, name string) (Access, error) {
	var perm struct {
		Permission string `json:"permission"`
	}
	_, err := c.a.do(ctx, call{op: op, method: http.MethodGet, path: c.RepoPath("/collaborators/%s/permission", url.PathEscape(name)), out: &perm})
	switch {
	case ReasonOf(err) == NotFound:
		return AccessRead, nil
	case err != nil:
		return AccessUnknown, err
	case perm.Permission == "admin" || perm.Permission == "write" || perm.Permission == "maintain":
		return AccessWrite, nil
	}
	return AccessRead, nil
}

// gitlabUserID finds a GitLab user's id by username (/users?username=),
// 0 when GitLab knows nobody by that name.
func (c *Core) gitlabUserID(ctx context.Context, op, name string) (int64, error) {
	var us []glUser
	_, err := c.a.do(ctx, call{op: op, method: http.MethodGet, path: "/users", query: url.Values{"username": {name}}, out: &us})
	for _, u := range us {
		if u.Username == name {
			return u.ID, nil
		}
	}
	return 0, err
}
