package board

import (
	"strings"
	"time"
)

// TrackerKind is the issue tracker a project takes its work from
// (docs/trackers.md): none, or GitHub, GitLab or Gitea issues of the
// project's repository, a Linear team or a Jira Cloud site.
type TrackerKind string

// The trackers.
const (
	TrackerNone   TrackerKind = ""
	TrackerGitHub TrackerKind = "github"
	TrackerGitLab TrackerKind = "gitlab"
	TrackerGitea  TrackerKind = "gitea"
	TrackerLinear TrackerKind = "linear"
	TrackerJira   TrackerKind = "jira"
)

var trackerKinds = enum[TrackerKind]{field: "tracker", help: "use none, github, gitlab, gitea, linear or jira",
	names: map[TrackerKind][]string{TrackerNone: {"none", ""}, TrackerGitHub: {"github"}, TrackerGitLab: {"gitlab"},
		TrackerGitea: {"gitea", "forgejo"}, TrackerLinear: {"linear"}, TrackerJira: {"jira"}}}

// ParseTrackerKind reads "none" (or ""), "github", "gitlab", "gitea"
// ("forgejo"), "linear" or "jira".
func ParseTrackerKind(s string) (TrackerKind, error) { return trackerKinds.parse(s) }

// String returns the tracker's name.
func (k TrackerKind) String() string { return trackerKinds.name(k) }

// Forge reports a tracker that is the issues of the project's repository.
func (k TrackerKind) Forge() bool {
	return k == TrackerGitHub || k == TrackerGitLab || k == TrackerGitea
}

// trackerSettings are the rows of board.Settings that configure a
// project's tracker, in the row "Tracker" of project show and the web
// form.
var trackerSettings = []Setting{
	{Name: "tracker", Flag: "tracker", Label: "tracker", Kind: KindChoice, choice: choiceOf(ParseTrackerKind), Row: "Tracker",
		Help: "where the project's work comes from: none (the default), github, gitlab or gitea (the issues of the project's repository), linear or jira",
		ptr:  func(a *AgentSettings) any { return (*string)(&a.Tracker) }},
	{Name: "trackerLabels", Flag: "tracker-labels", Label: "labels", Kind: KindList, Sep: ",", Row: "Tracker", check: validateTrackerWord,
		Help: "labels an issue must carry to become a ticket, e.g. bonsai (GitHub, GitLab, Gitea: all of them; Linear: one of them)",
		ptr:  func(a *AgentSettings) any { return &a.TrackerLabels }},
	{Name: "trackerAssignee", Flag: "tracker-assignee", Label: "assignee", Kind: KindText, Row: "Tracker", check: validateTrackerWord,
		Help: "login an issue must be assigned to (GitHub, GitLab, Gitea)",
		ptr:  func(a *AgentSettings) any { return &a.TrackerAssignee }},
	{Name: "trackerTeam", Flag: "tracker-team", Label: "team", Kind: KindText, Row: "Tracker", check: validateTrackerWord,
		Help: "Linear team key, e.g. ENG: its issues, and its members may steer the agent (Jira: the project key whose people may)",
		ptr:  func(a *AgentSettings) any { return &a.TrackerTeam }},
	{Name: "trackerStates", Flag: "tracker-states", Label: "states", Kind: KindList, Sep: ",", Row: "Tracker", check: validateTrackerWord,
		Help: "Linear workflow states an issue must be in, e.g. Todo (any when empty)",
		ptr:  func(a *AgentSettings) any { return &a.TrackerStates }},
	{Name: "trackerJql", Flag: "tracker-jql", Label: "JQL", Kind: KindText, Row: "Tracker", check: validateJQL,
		Help: `Jira query of the issues that become tickets, e.g. "project = PROJ AND labels = bonsai"`,
		ptr:  func(a *AgentSettings) any { return &a.TrackerJQL }},
	{Name: "trackerSite", Flag: "tracker-site", Label: "site", Kind: KindText, Row: "Tracker", check: validateTrackerSite,
		Help: "Jira Cloud site, e.g. https://acme.atlassian.net (Linear: its API, empty for api.linear.app); the token is sent there",
		ptr:  func(a *AgentSettings) any { return &a.TrackerSite }},
	{Name: "trackerEmail", Flag: "tracker-email", Label: "email", Kind: KindText, Row: "Tracker", check: validateTrackerWord,
		Help: "the Atlassian account the Jira API token belongs to",
		ptr:  func(a *AgentSettings) any { return &a.TrackerEmail }},
}

// validateTrackerWord refuses a tracker label, login, key or state that
// is too long or holds a control character.
func validateTrackerWord(s string) error {
	if len(s) > 200 || strings.ContainsFunc(s, func(r rune) bool { return r < 0x20 || r == 0x7f }) {
		return Errorf(EINVALID, "tracker setting %q: at most 200 characters, none of them a control character", s)
	}
	return nil
}

// validateJQL refuses a JQL query that is too long or holds a line break.
func validateJQL(s string) error {
	if len(s) > 2000 || strings.ContainsAny(s, "\r\n\x00") {
		return Errorf(EINVALID, "tracker JQL: at most 2000 characters on one line")
	}
	return nil
}

// validateTrackerSite refuses a site that is not an http(s) URL without
// credentials: the tracker's token is sent there.
func validateTrackerSite(s string) error {
	if s == "" {
		return nil
	}
	rest, ok := strings.CutPrefix(s, "https://")
	if !ok {
		rest, ok = strings.CutPrefix(s, "http://")
	}
	host, _, _ := strings.Cut(rest, "/")
	if !ok || host == "" || len(s) > 500 || strings.ContainsAny(s, "@?# \t\r\n\\") {
		return Errorf(EINVALID, "tracker site %q: use the site's https URL, e.g. https://acme.atlassian.net", s)
	}
	return nil
}

// validateTracker checks that a project's tracker has what it needs: a
// Linear team, a Jira site, query and account.
func (a AgentSettings) validateTracker() error {
	switch a.Tracker {
	case TrackerLinear:
		if a.TrackerTeam == "" {
			return Errorf(EINVALID, "a Linear tracker needs its team: --tracker-team ENG")
		}
	case TrackerJira:
		if a.TrackerSite == "" || a.TrackerJQL == "" || a.TrackerEmail == "" {
			return Errorf(EINVALID, "a Jira tracker needs --tracker-site, --tracker-jql and --tracker-email")
		}
	}
	return nil
}

// IssueStatus is what a linked issue was when last read.
type IssueStatus string

// The statuses of a linked issue.
const (
	// IssueOpen: it matches the project's query, or did when last read.
	IssueOpen IssueStatus = "open"
	// IssueUnmatched: it is open but no longer matches the query; its
	// ticket is kept and no longer synced.
	IssueUnmatched IssueStatus = "unmatched"
	// IssueClosed: it was closed on the tracker.
	IssueClosed IssueStatus = "closed"
	// IssueGone: it was deleted, or the token can no longer see it.
	IssueGone IssueStatus = "gone"
	// IssueMoved: it was moved to another repository or project.
	IssueMoved IssueStatus = "moved"
)

// IssueLink ties a ticket to the tracker issue it came from.
type IssueLink struct {
	// Ref is the ticket.
	Ref     Ref         `json:"ref"`
	Tracker TrackerKind `json:"tracker"`
	// IssueID is the tracker's own id of the issue; IssueRef what its
	// calls take (a number, ENG-12, PROJ-7).
	IssueID  string `json:"issueId"`
	IssueRef string `json:"issueRef"`
	URL      string `json:"url"`
	// Cursor is how far the issue's comments were read.
	Cursor string `json:"cursor,omitempty"`
	// Seen is what the issue was when its comments were last read (its
	// update time and comment count): a listed issue that differs has
	// news.
	Seen string `json:"seen,omitempty"`
	// Mirrored is the ticket state last shown on the issue.
	Mirrored State       `json:"mirrored,omitempty"`
	Status   IssueStatus `json:"status"`
	// Since is when it was linked: the ticket's comments before it are
	// never posted to the issue.
	Since     time.Time `json:"since"`
	UpdatedAt time.Time `json:"updatedAt"`
}

// Validate reports what is wrong with a link about to be stored.
func (l IssueLink) Validate() error {
	if !l.Tracker.Forge() && l.Tracker != TrackerLinear && l.Tracker != TrackerJira {
		return Errorf(EINVALID, "issue link of %s: tracker %q; %s", l.Ref, l.Tracker, trackerKinds.help)
	}
	if l.IssueID == "" || l.IssueRef == "" {
		return Errorf(EINVALID, "issue link of %s: the issue's id and reference are required", l.Ref)
	}
	switch l.Status {
	case IssueOpen, IssueUnmatched, IssueClosed, IssueGone, IssueMoved:
	default:
		return Errorf(EINVALID, "issue link of %s: status %q; use open, unmatched, closed, gone or moved", l.Ref, l.Status)
	}
	if l.Mirrored != "" && !l.Mirrored.Valid() {
		return Errorf(EINVALID, "issue link of %s: mirrored state %q", l.Ref, l.Mirrored)
	}
	return nil
}

// PostedPlanPrefix begins the id under which a ticket's plan posted to
// its issue is recorded, followed by a digest of the plan: a new plan is
// posted again, the same one never.
const PostedPlanPrefix = "plan:"

// TrackerSync is where a project's tracker sync stands between beats.
type TrackerSync struct {
	ProjectSlug string      `json:"project"`
	Tracker     TrackerKind `json:"tracker"`
	// Query names the query the validator answers: a changed query lists
	// afresh.
	Query string `json:"query,omitempty"`
	// Validator is what the tracker's conditional list gave back.
	Validator string `json:"validator,omitempty"`
	// Error is the last sync's failure, "" after a success; Failures
	// counts the syncs in a row that failed.
	Error     string    `json:"error,omitempty"`
	Failures  int       `json:"failures,omitempty"`
	UpdatedAt time.Time `json:"updatedAt"`
}
