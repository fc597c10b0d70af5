package forgesync

import "strings"

// A landing's ETag keeps two validators, separated by a newline (which
// no validator holds): the pull request's, and its head's checks' on
// forges whose pull request does not carry them (GitHub, Gitea). A
// landing saved before checks were polled holds the first only.

// splitTags returns the pull request's validator and the checks'.
func splitTags(etag string) (pr, checks string) {
	pr, checks, _ = strings.Cut(etag, "\n")
	return pr, checks
}

// joinTags keeps both validators in one string.
func joinTags(pr, checks string) string {
	if checks == "" {
		return pr
	}
	return pr + "\n" + checks
}
