package tracker

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"
)

// jira speaks Jira Cloud's REST API v3 with an API token, sent with its
// account's email as basic authentication, only to the site's host.
type jira struct {
	c     *client
	site  string
	login string // the token's account id
	// project is the project key (Options.Team) whose permissions
	// Writers asks when no issue is named.
	project string
	state   map[string]string
	mu      sync.Mutex
}

// jiraFields are the fields Bonsai reads of an issue.
var jiraFields = []string{"summary", "description", "status", "labels", "reporter", "assignee", "updated", "comment"}

// NewJira returns the tracker of a Jira Cloud site's issues
// (https://acme.atlassian.net) through its REST API v3. o.Email and
// o.Token authenticate; o.Login, the token's account id, makes only its
// own marked comments Bonsai's.
func NewJira(site string, o Options) (Tracker, error) {
	auth := ""
	if o.Token != "" {
		auth = "Basic " + base64.StdEncoding.EncodeToString([]byte(o.Email+":"+o.Token))
	}
	c, err := newClient(Jira, site, o, func(h http.Header) {
		if auth != "" {
			h.Set("Authorization", auth)
		}
	})
	if err != nil {
		return nil, err
	}
	j := &jira{c: c, site: c.base, login: o.Login, project: o.Team, state: o.States}
	if j.state == nil {
		j.state = DefaultStates(Jira)
	}
	return j, nil
}

func (j *jira) Kind() Kind { return Jira }

// jiraTime reads Jira's times ("2026-01-02T03:04:05.000+0000").
type jiraTime struct{ time.Time }

func (t *jiraTime) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil || s == "" {
		return nil
	}
	for _, layout := range []string{"2006-01-02T15:04:05.000-0700", time.RFC3339Nano} {
		if v, err := time.Parse(layout, s); err == nil {
			t.Time = v.UTC()
			return nil
		}
	}
	return fmt.Errorf("jira: unreadable time %q", s)
}

func (t jiraTime) MarshalJSON() ([]byte, error) { return json.Marshal(t.Time) }

type jiraUser struct {
	AccountID   string `json:"accountId"`
	DisplayName string `json:"displayName"`
}

type jiraIssue struct {
	ID     string `json:"id"`
	Key    string `json:"key"`
	Fields struct {
		Summary     string    `json:"summary"`
		Description *ADF      `json:"description"`
		Labels      []string  `json:"labels"`
		Reporter    *jiraUser `json:"reporter"`
		Assignee    *jiraUser `json:"assignee"`
		Updated     jiraTime  `json:"updated"`
		Status      struct {
			Name     string `json:"name"`
			Category struct {
				Key string `json:"key"`
			} `json:"statusCategory"`
		} `json:"status"`
		Comment struct {
			Total int `json:"total"`
		} `json:"comment"`
	} `json:"fields"`
}

func (j *jira) issue(i jiraIssue) Issue {
	f := i.Fields
	is := Issue{Ref: i.Key, ID: i.ID, Title: f.Summary, URL: j.site + "/browse/" + i.Key, State: Open, Status: f.Status.Name,
		Labels: f.Labels, Updated: f.Updated.Time, Comments: f.Comment.Total}
	if f.Description != nil {
		is.Body = ADFToMarkdown(*f.Description)
	}
	if f.Status.Category.Key == "done" {
		is.State = Closed
	}
	if f.Reporter != nil {
		is.Author = f.Reporter.DisplayName
	}
	if f.Assignee != nil {
		is.Assignees = []string{f.Assignee.DisplayName}
	}
	return is
}

// List runs the query's JQL on /rest/api/3/search/jql, every page, and
// compares the issues by a digest of the fields read (Jira sends no
// ETag): one request when nothing changed and they fit a page (50).
func (j *jira) List(ctx context.Context, q Query, validator string) (List, error) {
	if strings.TrimSpace(q.JQL) == "" {
		return List{Validator: validator}, &Error{Tracker: Jira, Op: "list issues", Reason: Invalid, Message: "a Jira tracker needs a JQL query"}
	}
	var all []jiraIssue
	token := ""
	for page := 0; page < 50; page++ {
		body := map[string]any{"jql": q.JQL, "fields": jiraFields, "maxResults": 50}
		if token != "" {
			body["nextPageToken"] = token
		}
		var out struct {
			Issues        []jiraIssue `json:"issues"`
			NextPageToken string      `json:"nextPageToken"`
			IsLast        bool        `json:"isLast"`
		}
		if _, err := j.c.do(ctx, request{op: "list issues", method: http.MethodPost, path: "/rest/api/3/search/jql", body: body, out: &out}); err != nil {
			return List{Validator: validator}, err
		}
		all = append(all, out.Issues...)
		if out.IsLast || out.NextPageToken == "" {
			break
		}
		token = out.NextPageToken
	}
	sum := digest(all)
	if sum == validator {
		return List{Validator: sum, NotModified: true}, nil
	}
	res := List{Validator: sum, Issues: []Issue{}}
	for _, i := range all {
		res.Issues = append(res.Issues, j.issue(i))
	}
	return res, nil
}

// Issue reads one issue by key; Jira answers 404 for one deleted or not
// visible, and the issue under its new key for one moved to another
// project.
func (j *jira) Issue(ctx context.Context, ref string) (Issue, error) {
	var i jiraIssue
	q := url.Values{"fields": {strings.Join(jiraFields, ",")}}
	if _, err := j.c.do(ctx, request{op: "read issue " + ref, method: http.MethodGet, path: "/rest/api/3/issue/" + url.PathEscape(ref), query: q, out: &i}); err != nil {
		return Issue{}, err
	}
	is := j.issue(i)
	if i.Key != ref && i.ID != ref {
		is.Moved = i.Key
	}
	return is, nil
}

// jiraMarker is the comment property that marks Bonsai's comments: ADF
// has no hidden text, and a property is not shown.
const jiraMarker = "bonsai"

type jiraComment struct {
	ID         string    `json:"id"`
	Author     *jiraUser `json:"author"`
	Body       ADF       `json:"body"`
	Created    jiraTime  `json:"created"`
	Updated    jiraTime  `json:"updated"`
	Properties []struct {
		Key string `json:"key"`
	} `json:"properties"`
}

func (c jiraComment) comment(site, key string) Comment {
	out := Comment{ID: c.ID, Body: ADFToMarkdown(c.Body), Created: c.Created.Time, Updated: c.Updated.Time,
		URL: site + "/browse/" + key + "?focusedCommentId=" + c.ID}
	if c.Author != nil {
		out.Author, out.AuthorID = c.Author.DisplayName, c.Author.AccountID
	}
	return out
}

// marked reports Bonsai's property on the comment.
func (c jiraComment) marked() bool {
	for _, p := range c.Properties {
		if p.Key == jiraMarker {
			return true
		}
	}
	return false
}
