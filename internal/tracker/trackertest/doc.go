// Package trackertest runs fake Linear and Jira Cloud servers for
// tests: real HTTP servers answering the documented API (Linear's
// GraphQL operations that Bonsai sends, by operation name and
// variables; Jira Cloud's REST v3 routes) with their payloads' field
// names, enforcing what the services enforce: the key or token and its
// scope, a team-restricted Linear key, Jira's project permissions, rate
// limits. Tests script what people do (open issues, comment, edit,
// trash or delete) and count the requests. The fake GitHub, GitLab and
// Gitea issue routes are in internal/forge/forgetest.
package trackertest
