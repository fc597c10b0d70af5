package forgetest

import (
	"net/http"
	"strconv"
	"strings"
)

// GitHubIssuesFineGrained are the permissions of a fine-grained GitHub
// token that docs/trackers.md lists for issues: SetScopes with them
// makes the fake GitHub refuse what GitHub refuses such a token.
var GitHubIssuesFineGrained = []string{"issues:write", "metadata:read"}

// githubIssuePermission is the fine-grained permission a GitHub request
// on issues needs, as GitHub asks it: "issues" for the list and for an
// issue's routes (a pull request's number keeps the pull requests
// permission, which GitHub also accepts there), metadata (always
// granted: "") for a collaborator's permission. ok is false for other
// routes.
func (s *Server) githubIssuePermission(method, path string) (need string, ok bool) {
	rest := strings.TrimPrefix(path, "/api/v3/repos/")
	parts := strings.Split(rest, "/")
	if len(parts) < 3 {
		return "", false
	}
	level := "read"
	if method != http.MethodGet && method != http.MethodHead {
		level = "write"
	}
	switch {
	case parts[2] == "collaborators":
		return "", true
	case parts[2] == "labels":
		return "issues:" + level, true
	case parts[2] != "issues":
		return "", false
	case len(parts) == 3:
		return "issues:" + level, true
	}
	n, err := strconv.Atoi(parts[3])
	if err != nil {
		return "", false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.issueByNumber(parts[0]+"/"+parts[1], n) == nil {
		return "", false
	}
	return "issues:" + level, true
}
