// Package forge talks to the forges where teams review work: GitHub
// (and GitHub Enterprise), GitLab (and self-hosted GitLab) and Gitea or
// Forgejo, each through its REST API over net/http.
//
// A Client opens and updates the pull request (GitLab: merge request) of
// a ticket branch, reads its state with conditional requests (ETag and
// If-None-Match, so an unchanged pull request costs a 304 and no rate
// limit on GitHub), lists the reviews and review comments a cursor has not
// seen, reads the combined checks of its head commit and merges it. Every
// failure is an *Error that names the cause and the fix.
//
// Detect finds the forge, the API base URL and the repository of a git
// remote URL. The token goes only to that API host: it is attached to
// requests for that host and dropped on a redirect elsewhere.
package forge
