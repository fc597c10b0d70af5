package forge

import (
	"context"
	"net/http"
	"net/url"
	"sort"
)

// access is what Bonsai knows of an author's right to push.
type access int

const (
	accessUnknown access = iota
	accessInsider
	accessOutsider
)

// gtAccess decides, for one read of a pull request's reviews, which
// authors may push to a Gitea repository. The exact answer is
// /collaborators/{user}/permission, but Gitea tells it only to admins
// and to the user themself: the usual bot account, a write collaborator,
// gets 403 for anybody else. Then the users who may be assigned issues
// (/assignees: those with write access, the owner, and members of teams
// that may read pull requests) decide, one request for all; when that
// is refused too, the author's access is unknown.
type gtAccess struct {
	g         *gitea
	op        string
	known     map[string]access
	assignees map[string]bool // nil until read
	refused   bool            // /assignees was refused
}

func (g *gitea) access(op string) *gtAccess {
	return &gtAccess{g: g, op: op, known: map[string]access{}}
}

// decide finds out name's access, unless already known.
func (a *gtAccess) decide(ctx context.Context, name string) error {
	if a.known[name] != accessUnknown {
		return nil
	}
	if !a.g.permissionRefused.Load() {
		var perm struct {
			Permission string `json:"permission"`
		}
		_, err := a.g.do(ctx, call{op: a.op, method: http.MethodGet, path: a.g.path("/collaborators/%s/permission", url.PathEscape(name)), out: &perm})
		switch ReasonOf(err) {
		case "":
			a.known[name] = accessOutsider
			if perm.Permission == "write" || perm.Permission == "admin" || perm.Permission == "owner" {
				a.known[name] = accessInsider
			}
			return nil
		case NotFound:
			a.known[name] = accessOutsider
			return nil
		case Forbidden:
			// Not an admin's token: ask the assignees from now on.
			a.g.permissionRefused.Store(true)
		default:
			return err
		}
	}
	return a.fromAssignees(ctx, name)
}

// fromAssignees decides name's access from the repository's assignees.
func (a *gtAccess) fromAssignees(ctx context.Context, name string) error {
	if a.assignees == nil && !a.refused {
		users, err := list[ghUser](ctx, a.g.api, a.op, a.g.path("/assignees"), nil)
		switch r := ReasonOf(err); {
		case r == Forbidden || r == NotFound:
			a.refused = true
		case err != nil:
			return err
		default:
			a.assignees = map[string]bool{}
			for _, u := range users {
				a.assignees[u.Login] = true
			}
		}
	}
	switch {
	case a.refused:
		a.known[name] = accessUnknown
	case a.assignees[name]:
		a.known[name] = accessInsider
	default:
		a.known[name] = accessOutsider
	}
	return nil
}

// mark sets r's Outsider and Unknown from its author's access.
func (a *gtAccess) mark(r Review) Review {
	switch a.known[r.Author] {
	case accessInsider:
	case accessOutsider:
		r.Outsider = true
	default:
		r.Outsider, r.Unknown = true, true
	}
	return r
}

// sortedKeys returns m's keys in order, so that requests are made in
// the same order every time.
func sortedKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
