// Package forgetest runs fake GitHub, GitLab and Gitea servers for tests:
// real HTTP servers answering the forges' documented REST routes with
// their payloads' field names, conditional requests (ETag, If-None-Match,
// 304), the error answers (401, 403, 404, 405, 409, 422) and rate limits
// with Retry-After. Tests script what a person does on the forge (review,
// comment, set checks, merge or close outside Bonsai) and count the
// requests. A server can also serve git repositories over smart HTTP
// (git http-backend), so a project's remote can be the fake forge itself.
package forgetest
