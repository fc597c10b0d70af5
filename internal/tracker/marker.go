package tracker

import "strings"

// Marker ends every comment Bonsai posts: an HTML comment, which the
// forges' Markdown does not show, so that a later read knows the comment
// as Bonsai's and never gives it back as a person's.
const Marker = "<!-- bonsai:comment -->"

// Mark appends Marker to body, once.
func Mark(body string) string {
	if HasMarker(body) {
		return body
	}
	return strings.TrimRight(body, "\n") + "\n\n" + Marker
}

// HasMarker reports whether body carries Marker.
func HasMarker(body string) bool { return strings.Contains(body, Marker) }

// Unmark removes Marker from body.
func Unmark(body string) string {
	return strings.TrimRight(strings.ReplaceAll(body, Marker, ""), "\n ")
}
