package workspace

import (
	"fmt"
	"strings"
)

// maxTitleSlug bounds the title part of a branch name.
const maxTitleSlug = 40

// BranchName returns the branch of ticket number n titled title:
// "bonsai/<n>-<slug of title>", or "bonsai/<n>" when the title has no
// letters or digits.
func BranchName(n int, title string) string {
	s := TitleSlug(title)
	if s == "" {
		return fmt.Sprintf("bonsai/%d", n)
	}
	return fmt.Sprintf("bonsai/%d-%s", n, s)
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
