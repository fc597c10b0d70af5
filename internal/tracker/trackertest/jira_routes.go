package trackertest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"sort"
	"strconv"
)

// search answers POST /rest/api/3/search/jql: the issues the JQL
// selects among those the account may browse, most recently updated
// first, a page at a time with nextPageToken.
func (j *Jira) search(w http.ResponseWriter, r *http.Request) {
	var in struct {
		JQL           string   `json:"jql"`
		Fields        []string `json:"fields"`
		MaxResults    int      `json:"maxResults"`
		NextPageToken string   `json:"nextPageToken"`
	}
	if err := json.NewDecoder(http.MaxBytesReader(w, r.Body, 1<<20)).Decode(&in); err != nil {
		jiraErr(w, http.StatusBadRequest, "Invalid request payload. Refer to the REST API documentation and try again.")
		return
	}
	match, err := parseJQL(in.JQL)
	if err != nil {
		jiraErr(w, http.StatusBadRequest, err.Error())
		return
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	var list []*jrIssue
	for _, is := range j.issues {
		if !is.deleted && is.project.may(JiraAccount, Browse) && match(j, is) {
			list = append(list, is)
		}
	}
	sort.SliceStable(list, func(a, b int) bool { return list[a].updated.After(list[b].updated) })
	start, _ := strconv.Atoi(in.NextPageToken)
	size := in.MaxResults
	if size <= 0 || size > 100 {
		size = 50
	}
	if j.pageSize > 0 {
		size = j.pageSize
	}
	start = min(start, len(list))
	end := min(start+size, len(list))
	out := map[string]any{"issues": []any{}, "isLast": end >= len(list)}
	issues := []any{}
	for _, is := range list[start:end] {
		issues = append(issues, j.issueJSON(is))
	}
	out["issues"] = issues
	if end < len(list) {
		out["nextPageToken"] = strconv.Itoa(end)
	}
	writeJSON(w, http.StatusOK, out)
}

func (j *Jira) getIssue(w http.ResponseWriter, r *http.Request) {
	j.mu.Lock()
	defer j.mu.Unlock()
	if is, ok := j.visible(w, r.PathValue("key")); ok {
		writeJSON(w, http.StatusOK, j.issueJSON(is))
	}
}

// comments answers an issue's comments by startAt and maxResults, with
// their properties when expand=properties.
func (j *Jira) comments(w http.ResponseWriter, r *http.Request) {
	j.mu.Lock()
	defer j.mu.Unlock()
	is, ok := j.visible(w, r.PathValue("key"))
	if !ok {
		return
	}
	q := r.URL.Query()
	start, _ := strconv.Atoi(q.Get("startAt"))
	size, err := strconv.Atoi(q.Get("maxResults"))
	if err != nil || size <= 0 || size > 100 {
		size = 100
	}
	if j.pageSize > 0 {
		size = j.pageSize
	}
	start = min(max(start, 0), len(is.comments))
	end := min(start+size, len(is.comments))
	list := []any{}
	for _, c := range is.comments[start:end] {
		list = append(list, j.commentJSON(c, q.Get("expand") == "properties"))
	}
	writeJSON(w, http.StatusOK, map[string]any{"startAt": start, "maxResults": size, "total": len(is.comments), "comments": list})
}

// addComment adds a comment in ADF, with its properties; a body that is
// not a version 1 document, or holds an empty text node, is refused as
// Jira refuses it.
func (j *Jira) addComment(w http.ResponseWriter, r *http.Request) {
	var in struct {
		Body       json.RawMessage `json:"body"`
		Properties []struct {
			Key string `json:"key"`
		} `json:"properties"`
	}
	if err := json.NewDecoder(http.MaxBytesReader(w, r.Body, 1<<20)).Decode(&in); err != nil {
		jiraErr(w, http.StatusBadRequest, "Invalid request payload. Refer to the REST API documentation and try again.")
		return
	}
	if err := validADF(in.Body); err != nil {
		writeJSON(w, http.StatusBadRequest, map[string]any{"errorMessages": []string{}, "errors": map[string]string{"comment": err.Error()}})
		return
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	is, ok := j.visible(w, r.PathValue("key"))
	if !ok {
		return
	}
	if !is.project.may(JiraAccount, AddComment) {
		jiraErr(w, http.StatusForbidden, "You do not have the permission to comment on this issue.")
		return
	}
	var props []string
	for _, p := range in.Properties {
		props = append(props, p.Key)
	}
	writeJSON(w, http.StatusCreated, j.commentJSON(j.comment(is, JiraAccount, in.Body, props), true))
}

// validADF checks what Jira checks of a document: a doc of version 1
// whose text nodes are not empty.
func validADF(raw json.RawMessage) error {
	type node struct {
		Type    string `json:"type"`
		Version int    `json:"version"`
		Text    *string
		Content []json.RawMessage `json:"content"`
	}
	var doc node
	if json.Unmarshal(raw, &doc) != nil || doc.Type != "doc" || doc.Version != 1 {
		return fmt.Errorf("Comment body is not valid!")
	}
	var walk func([]json.RawMessage) error
	walk = func(list []json.RawMessage) error {
		for _, c := range list {
			var n node
			if json.Unmarshal(c, &n) != nil || n.Type == "" || n.Type == "text" && (n.Text == nil || *n.Text == "") {
				return fmt.Errorf("INVALID_INPUT")
			}
			if err := walk(n.Content); err != nil {
				return err
			}
		}
		return nil
	}
	return walk(doc.Content)
}

// transitions answers the transitions to every other status, or none
// to an account without TRANSITION_ISSUES.
func (j *Jira) transitions(w http.ResponseWriter, r *http.Request) {
	j.mu.Lock()
	defer j.mu.Unlock()
	is, ok := j.visible(w, r.PathValue("key"))
	if !ok {
		return
	}
	list := []any{}
	if is.project.may(JiraAccount, Transition) {
		for i, s := range jiraStatuses {
			if s != is.status {
				list = append(list, map[string]any{"id": strconv.Itoa(11 + 10*i), "name": "Move to " + s,
					"to": map[string]any{"name": s, "statusCategory": map[string]any{"key": j.statusCat[s]}}})
			}
		}
	}
	writeJSON(w, http.StatusOK, map[string]any{"transitions": list})
}

func (j *Jira) doTransition(w http.ResponseWriter, r *http.Request) {
	var in struct {
		Transition struct {
			ID string `json:"id"`
		} `json:"transition"`
	}
	if err := json.NewDecoder(http.MaxBytesReader(w, r.Body, 1<<20)).Decode(&in); err != nil {
		jiraErr(w, http.StatusBadRequest, "Invalid request payload.")
		return
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	is, ok := j.visible(w, r.PathValue("key"))
	if !ok {
		return
	}
	if !is.project.may(JiraAccount, Transition) {
		jiraErr(w, http.StatusForbidden, "You do not have permission to transition this issue.")
		return
	}
	for i, s := range jiraStatuses {
		if strconv.Itoa(11+10*i) == in.Transition.ID && s != is.status {
			is.status, is.updated = s, j.tick()
			w.WriteHeader(http.StatusNoContent)
			return
		}
	}
	jiraErr(w, http.StatusBadRequest, "Transition id '"+in.Transition.ID+"' is not valid for this issue.")
}

// permissionSearch answers the users holding every permission named on
// an issue's or a project's, filtered by accountId; it needs the global
// permission to browse users.
func (j *Jira) permissionSearch(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	j.mu.Lock()
	defer j.mu.Unlock()
	if !j.userPick {
		jiraErr(w, http.StatusForbidden, "You do not have the permission to browse users.")
		return
	}
	if q.Get("permissions") == "" {
		jiraErr(w, http.StatusBadRequest, "The permissions parameter is required.")
		return
	}
	var p *jrProject
	switch {
	case q.Get("issueKey") != "":
		is, ok := j.visible(w, q.Get("issueKey"))
		if !ok {
			return
		}
		p = is.project
	case j.projects[q.Get("projectKey")] != nil:
		p = j.projects[q.Get("projectKey")]
	default:
		jiraErr(w, http.StatusNotFound, "No project could be found with key '"+q.Get("projectKey")+"'.")
		return
	}
	out := []any{}
	ids := make([]string, 0, len(p.perms))
	for id := range p.perms {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	for _, id := range ids {
		if a := q.Get("accountId"); a != "" && a != id {
			continue
		}
		if slices.Contains(p.perms[id], q.Get("permissions")) {
			out = append(out, j.user(id))
		}
	}
	writeJSON(w, http.StatusOK, out)
}
