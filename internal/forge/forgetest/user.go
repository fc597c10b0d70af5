package forgetest

import "net/http"

// whoami answers GET /user, the token's own user: GitHub's and Gitea's
// login, GitLab's username (Gitea asks the read:user scope).
func (s *Server) whoami(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	name := s.caller
	s.mu.Unlock()
	writeJSON(w, http.StatusOK, map[string]any{"id": userID(name), "login": name, "username": name, "name": name})
}
