package workspace

import "regexp"

// userinfo matches the user part of a URL ("https://user:token@host"):
// people put access tokens there, and git repeats the URL in its errors.
var userinfo = regexp.MustCompile(`([A-Za-z][A-Za-z0-9+.-]*://)[^/@\s'"]+@`)

// Redact returns s with the credentials of every URL in it replaced by
// "***", so that errors naming a repository can be logged, stored on a
// ticket and shown to the agent.
func Redact(s string) string {
	return userinfo.ReplaceAllString(s, "${1}***@")
}
