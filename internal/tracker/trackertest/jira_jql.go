package trackertest

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
)

// jqlClause is one "field op value(s)" of the JQL the fake understands:
// project, labels, status, statusCategory and reporter with =, != and
// in (…), joined by AND, an ORDER BY ignored.
var jqlClause = regexp.MustCompile(`(?i)^\s*(\w+)\s*(=|!=|\bnot in\b|\bin\b)\s*(\([^)]*\)|"[^"]*"|[\w-]+)\s*$`)

// parseJQL returns the filter a JQL query means, or the error Jira
// gives for it.
func parseJQL(jql string) (func(*Jira, *jrIssue) bool, error) {
	if i := strings.Index(strings.ToUpper(jql), "ORDER BY"); i >= 0 {
		jql = jql[:i]
	}
	if strings.TrimSpace(jql) == "" {
		return nil, fmt.Errorf("Unbounded JQL queries are not allowed here. Please add a search restriction to your query.")
	}
	var tests []func(*Jira, *jrIssue) bool
	for _, part := range regexp.MustCompile(`(?i)\s+AND\s+`).Split(jql, -1) {
		m := jqlClause.FindStringSubmatch(part)
		if m == nil {
			return nil, fmt.Errorf("Error in the JQL Query: %q is not understood.", strings.TrimSpace(part))
		}
		field, op, values := strings.ToLower(m[1]), strings.ToLower(m[2]), jqlValues(m[3])
		get, ok := jqlFields[field]
		if !ok {
			return nil, fmt.Errorf("Field '%s' does not exist or you do not have permission to view it.", m[1])
		}
		neg := op == "!=" || op == "not in"
		tests = append(tests, func(j *Jira, is *jrIssue) bool {
			hit := slices.ContainsFunc(get(j, is), func(v string) bool {
				return slices.ContainsFunc(values, func(w string) bool { return strings.EqualFold(v, w) })
			})
			return hit != neg
		})
	}
	return func(j *Jira, is *jrIssue) bool {
		for _, t := range tests {
			if !t(j, is) {
				return false
			}
		}
		return true
	}, nil
}

func jqlValues(s string) []string {
	s = strings.TrimSuffix(strings.TrimPrefix(s, "("), ")")
	var out []string
	for _, v := range strings.Split(s, ",") {
		out = append(out, strings.Trim(strings.TrimSpace(v), `"`))
	}
	return out
}

var jqlFields = map[string]func(*Jira, *jrIssue) []string{
	"project":        func(_ *Jira, is *jrIssue) []string { return []string{is.project.key} },
	"labels":         func(_ *Jira, is *jrIssue) []string { return is.labels },
	"status":         func(_ *Jira, is *jrIssue) []string { return []string{is.status} },
	"statuscategory": func(j *Jira, is *jrIssue) []string { return []string{categoryNames[j.statusCat[is.status]]} },
	"reporter":       func(_ *Jira, is *jrIssue) []string { return []string{is.reporter} },
}

// categoryNames are the status categories by key, as JQL names them.
var categoryNames = map[string]string{"new": "To Do", "indeterminate": "In Progress", "done": "Done"}
