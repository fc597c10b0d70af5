package workspace

import (
	"fmt"
	"strings"
)

// maxTitleSlug bounds the title part of a branch name.
const maxTitleSlug = 40

// BranchName returns the branch of ticket number n titled title in the
// project with slug slug: "bonsai/<project>/<n>-<slug of title>", or
// "bonsai/<project>/<n>" when the title has no letters or digits. The
// project is part of the name because projects may share a repository and
// each numbers its tickets from 1: without it, two projects' tickets with
// the same number and title would share one branch on the remote.
//
// Branches recorded on tickets before the project was part of the name
// ("bonsai/<n>-<title>") are kept as they are; see Prepare.
func BranchName(slug string, n int, title string) string {
	s := TitleSlug(title)
	if s == "" {
		return fmt.Sprintf("bonsai/%s/%d", slug, n)
	}
	return fmt.Sprintf("bonsai/%s/%d-%s", slug, n, s)
}

// TitleSlug lower-cases title, keeps ASCII letters and digits, joins the
// words with "-" and cuts the result at a word boundary near 40 characters.
func TitleSlug(title string) string {
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(title) {
		switch {
		case r >= 'a' && r <= 'z' || r >= '0' && r <= '9':
			if dash && b.Len() > 0 {
				b.WriteByte('-')
			}
			b.WriteRune(r)
			dash = false
		default:
			dash = true
		}
	}
	s := b.String()
	if len(s) > maxTitleSlug {
		s = s[:maxTitleSlug]
		if i := strings.LastIndexByte(s, '-'); i > maxTitleSlug/2 {
			s = s[:i]
		}
		s = strings.TrimRight(s, "-")
	}
	return s
}
