package trackersync

import (
	"strings"
	"unicode/utf8"

	"github.com/bonsai-run/bonsai/internal/board"
)

// trackerName is a tracker's name in prose.
func trackerName(k board.TrackerKind) string {
	switch k {
	case board.TrackerGitHub:
		return "GitHub"
	case board.TrackerGitLab:
		return "GitLab"
	case board.TrackerGitea:
		return "Gitea"
	case board.TrackerLinear:
		return "Linear"
	case board.TrackerJira:
		return "Jira"
	}
	return string(k)
}

// indent sets a message apart as a code block.
func indent(msg string) string {
	return "    " + strings.ReplaceAll(strings.TrimSpace(msg), "\n", "\n    ")
}

// cut shortens s to at most n bytes on a character boundary, with an
// ellipsis.
func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	s = s[:n-3]
	for !utf8.ValidString(s) {
		s = s[:len(s)-1]
	}
	return s + "…"
}
