package trackertest

import "net/http"

// opViewer answers Linear's viewer: the key's own user.
func (l *Linear) opViewer(map[string]any) (any, error) {
	return map[string]any{"viewer": map[string]any{"id": l.viewer, "name": "Bonsai"}}, nil
}

// myself answers Jira's GET /rest/api/3/myself: the token's account.
func (j *Jira) myself(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, map[string]any{"accountId": JiraAccount, "displayName": "Bonsai", "emailAddress": JiraEmail})
}
