package markdown

import (
	"bytes"

	"github.com/yuin/goldmark/util"
)

// resolveURL decodes a link destination as written in Markdown: backslash
// escapes and character references become the characters they stand for.
func resolveURL(dest []byte) []byte {
	return util.ResolveEntityNames(util.ResolveNumericReferences(util.UnescapePunctuations(dest)))
}

// safeURL reports whether a decoded link destination may be a link's href
// or an image's src, and returns it cleaned the way a browser cleans it
// before parsing: tabs and newlines removed, leading and trailing spaces
// and control characters trimmed, the scheme in lower case. Allowed are
// http, https and mailto URLs, and URLs with no scheme (relative paths,
// queries, #fragments, //host). Anything else with a colon before the
// first slash, ? or # is refused, even what a browser would read as a
// relative path (java\0script:x). external is true for those that lead to
// another site. An empty destination is not a link.
func safeURL(dest []byte) (url []byte, external, ok bool) {
	url = make([]byte, 0, len(dest))
	for _, c := range dest {
		if c != '\t' && c != '\n' && c != '\r' {
			url = append(url, c)
		}
	}
	url = bytes.TrimFunc(url, func(r rune) bool { return r <= ' ' || r == 0x7f })
	if len(url) == 0 {
		return nil, false, false
	}
	end := bytes.IndexAny(url, ":/?#")
	if end < 0 || url[end] != ':' {
		// No scheme: relative, or //host (which a browser also reads from
		// /\host or \\host).
		external = len(url) > 1 && (url[0] == '/' || url[0] == '\\') && (url[1] == '/' || url[1] == '\\')
		return url, external, true
	}
	scheme := bytes.ToLower(url[:end])
	switch string(scheme) {
	case "http", "https":
		external = true
	case "mailto":
	default:
		return nil, false, false
	}
	copy(url, scheme)
	return url, external, true
}
