package forgetest

import (
	"net/http"
	"slices"
	"strings"
)

// DefaultScopes are the scopes of the token the servers accept unless a
// test calls SetScopes: what docs/forges.md tells people to give.
func DefaultScopes(k string) []string {
	switch k {
	case "github":
		return []string{"repo"}
	case "gitlab":
		return []string{"api"}
	}
	return []string{"write:repository", "read:issue"}
}

// SetScopes sets the accepted token's scopes, which the server enforces
// as the forge does: Gitea's categories (repository, issue, user; write
// includes read) answer 403 naming the scope missing; GitLab's read_api
// reads only, api writes too (403 insufficient_scope); a GitHub classic
// token without repo sees no private repository (404), and every answer
// names the scopes in X-OAuth-Scopes.
func (s *Server) SetScopes(scopes ...string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.scopes = append([]string{}, scopes...)
}

// SetCaller names the accepted token's user and whether it is the
// repositories' admin. By default it is "bonsai", a write collaborator
// and not an admin, the usual bot account.
func (s *Server) SetCaller(login string, admin bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.caller, s.admin = login, admin
}

// refuseScope answers a request the token's scopes do not allow, as the
// forge does; it returns status 0 when they allow it. It may set
// headers on w.
func (s *Server) refuseScope(w http.ResponseWriter, r *http.Request) (int, map[string]any) {
	s.mu.Lock()
	scopes := s.scopes
	s.mu.Unlock()
	if scopes == nil {
		scopes = DefaultScopes(string(s.Kind))
	}
	write := r.Method != http.MethodGet && r.Method != http.MethodHead
	switch s.Kind {
	case "github":
		if fineGrained(scopes) {
			need := githubPermission(r.Method, r.URL.Path)
			if n, ok := s.githubIssuePermission(r.Method, r.URL.Path); ok {
				need = n
			}
			if need == "" || githubAllows(scopes, need) {
				return 0, nil
			}
			w.Header().Set("X-Accepted-GitHub-Permissions", strings.Replace(need, ":", "=", 1))
			return http.StatusForbidden, map[string]any{"message": "Resource not accessible by personal access token", "documentation_url": "https://docs.github.com/rest"}
		}
		w.Header().Set("X-OAuth-Scopes", strings.Join(scopes, ", "))
		if !slices.Contains(scopes, "repo") {
			return http.StatusNotFound, map[string]any{"message": "Not Found", "documentation_url": "https://docs.github.com/rest"}
		}
	case "gitlab":
		if slices.Contains(scopes, "api") || !write && slices.Contains(scopes, "read_api") {
			return 0, nil
		}
		need := "api"
		if !write {
			need = "api read_api"
		}
		return http.StatusForbidden, map[string]any{"error": "insufficient_scope",
			"error_description": "The request requires higher privileges than provided by the access token.", "scope": need}
	default:
		need := giteaScope(r.URL.Path, write)
		if need == "" || giteaAllows(scopes, need) {
			return 0, nil
		}
		return http.StatusForbidden, map[string]any{"message": "token does not have at least one of required scope(s), required=[" + need + "], token scope=" + strings.Join(scopes, ",")}
	}
	return 0, nil
}

// GitHubFineGrained are the permissions of a fine-grained GitHub token
// that docs/forges.md lists: SetScopes(GitHubFineGrained...) makes the
// fake GitHub enforce them as GitHub does (403 "Resource not accessible
// by personal access token", naming the permission in
// X-Accepted-GitHub-Permissions), and send no X-OAuth-Scopes.
var GitHubFineGrained = []string{"pull_requests:write", "contents:write", "statuses:read", "checks:read"}

// fineGrained reports permissions written resource:level, as a
// fine-grained token has them.
func fineGrained(scopes []string) bool {
	return len(scopes) > 0 && strings.Contains(scopes[0], ":")
}

// githubPermission is the fine-grained permission a GitHub API request
// needs; "" for the repository itself (metadata, always granted).
func githubPermission(method, path string) string {
	rest := strings.TrimPrefix(path, "/api/v3/repos/")
	parts := strings.SplitN(rest, "/", 3)
	if len(parts) < 3 {
		return ""
	}
	level := "read"
	if method != http.MethodGet && method != http.MethodHead {
		level = "write"
	}
	switch tail := parts[2]; {
	case strings.HasPrefix(tail, "pulls/") && strings.HasSuffix(tail, "/merge"):
		return "contents:write"
	case strings.HasPrefix(tail, "pulls"), strings.HasPrefix(tail, "issues/"):
		return "pull_requests:" + level
	case strings.HasSuffix(tail, "/check-runs"):
		return "checks:" + level
	case strings.HasSuffix(tail, "/status"), strings.HasSuffix(tail, "/statuses"):
		return "statuses:" + level
	}
	return "contents:" + level
}

// githubAllows reports whether permissions grant need; write includes
// read.
func githubAllows(perms []string, need string) bool {
	resource, level, _ := strings.Cut(need, ":")
	return slices.Contains(perms, need) || level == "read" && slices.Contains(perms, resource+":write")
}

// giteaScope is the scope a Gitea API path needs: the issue category for
// /repos/{o}/{r}/issues/…, the user category for /user, the repository
// category for the rest of /repos.
func giteaScope(path string, write bool) string {
	rest := strings.TrimPrefix(path, "/api/v1")
	category := ""
	switch {
	case strings.HasPrefix(rest, "/repos/"):
		category = "repository"
		if parts := strings.SplitN(strings.TrimPrefix(rest, "/repos/"), "/", 4); len(parts) >= 3 && (parts[2] == "issues" || parts[2] == "labels") {
			category = "issue"
		}
	case rest == "/user" || strings.HasPrefix(rest, "/user/"):
		category = "user"
	default:
		return ""
	}
	if write {
		return "write:" + category
	}
	return "read:" + category
}

// giteaAllows reports whether scopes grant need; write:X grants read:X,
// and "all" grants everything.
func giteaAllows(scopes []string, need string) bool {
	category := need[strings.Index(need, ":")+1:]
	for _, sc := range scopes {
		if sc == "all" || sc == need || sc == "write:"+category {
			return true
		}
	}
	return false
}
