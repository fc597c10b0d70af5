package markdown

import (
	"bytes"

	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"
)

// linkifyParser links bare URLs and email addresses in text (GFM's
// extended autolinks): http:// and https:// URLs, www. domains (as http)
// and addresses, at the start of a line or after a space, *, _, ~ or (.
// A URL runs to the next space or <, less trailing punctuation, an
// unmatched closing parenthesis, or what looks like an entity (&amp;).
type linkifyParser struct{}

// Trigger implements parser.InlineParser: a space (or the start of a line)
// and the characters after which a link may start.
func (linkifyParser) Trigger() []byte { return []byte{' ', '*', '_', '~', '('} }

// Parse implements parser.InlineParser.
func (linkifyParser) Parse(parent ast.Node, block text.Reader, pc parser.Context) ast.Node {
	if pc.IsInLinkLabel() {
		return nil
	}
	line, seg := block.PeekLine()
	skip := 0
	if len(line) > 0 && bytes.IndexByte([]byte(" *_~("), line[0]) >= 0 {
		skip = 1
	}
	rest := line[skip:]
	typ, proto := ast.AutoLinkURL, []byte(nil)
	var n int
	switch {
	case bytes.HasPrefix(rest, []byte("http://")), bytes.HasPrefix(rest, []byte("https://")):
		n = scanURL(rest, bytes.IndexByte(rest, ':')+3)
	case bytes.HasPrefix(rest, []byte("www.")):
		n, proto = scanURL(rest, 4), []byte("http") // www.a.b at least
	default:
		n, typ = scanEmail(rest), ast.AutoLinkEmail
	}
	if n == 0 {
		return nil
	}
	if skip == 1 {
		ast.MergeOrAppendTextSegment(parent, seg.WithStop(seg.Start+1))
	}
	block.Advance(skip + n)
	start := seg.Start + skip
	link := ast.NewAutoLink(typ, ast.NewTextSegment(text.NewSegment(start, start+n)))
	link.Protocol = proto
	return link
}

// scanURL returns the length of the URL at the start of s, whose domain
// starts at host, or 0 if the domain (less a :port) is not valid.
func scanURL(s []byte, host int) int {
	end := host
	for end < len(s) && s[end] > ' ' && s[end] != '<' && s[end] != 0x7f {
		end++
	}
	domainEnd := host
	for domainEnd < end && bytes.IndexByte([]byte("/?#"), s[domainEnd]) < 0 {
		domainEnd++
	}
	end = trimURL(s[:end], host)
	if end < domainEnd {
		domainEnd = end
	}
	d := s[host:domainEnd]
	if i := bytes.LastIndexByte(d, ':'); i >= 0 && i+1 < len(d) && len(bytes.Trim(d[i+1:], "0123456789")) == 0 {
		d = d[:i]
	}
	if !validDomain(d) {
		return 0
	}
	return end
}

// trimURL returns where the URL s ends once trailing punctuation, an
// unmatched ")" and a trailing entity-like "&name;" are dropped, keeping
// at least min bytes.
func trimURL(s []byte, min int) int {
	end := len(s)
	for end > min {
		switch c := s[end-1]; c {
		case '?', '!', '.', ',', ':', '*', '_', '~':
			end--
			continue
		case ')':
			if bytes.Count(s[:end], []byte{')'}) > bytes.Count(s[:end], []byte{'('}) {
				end--
				continue
			}
		case ';':
			j := end - 2
			for j >= 0 && isAlnum(s[j]) {
				j--
			}
			if j >= 0 && j < end-2 && s[j] == '&' {
				end = j
				continue
			}
		}
		break
	}
	return end
}

// validDomain reports whether d is a domain GFM links: labels of letters,
// digits, - and _, at least two, with no _ in the last two.
func validDomain(d []byte) bool {
	d = bytes.TrimSuffix(d, []byte{'.'})
	labels := bytes.Split(d, []byte{'.'})
	if len(labels) < 2 {
		return false
	}
	for i, l := range labels {
		if len(l) == 0 {
			return false
		}
		for _, c := range l {
			if !isAlnum(c) && c != '-' && (c != '_' || i >= len(labels)-2) {
				return false
			}
		}
	}
	return true
}

// scanEmail returns the length of the email address at the start of s, or
// 0: a local part of letters, digits and .+-_, then @ and a domain of
// letters, digits, - and _ with at least one dot, not ending in - or _.
func scanEmail(s []byte) int {
	i := 0
	for i < len(s) && (isAlnum(s[i]) || bytes.IndexByte([]byte(".+-_"), s[i]) >= 0) {
		i++
	}
	if i == 0 || i >= len(s) || s[i] != '@' {
		return 0
	}
	at := i
	i++
	for i < len(s) && (isAlnum(s[i]) || s[i] == '-' || s[i] == '_' || s[i] == '.' && i+1 < len(s) && isAlnum(s[i+1])) {
		i++
	}
	d := s[at+1 : i]
	if bytes.IndexByte(d, '.') < 0 || len(d) == 0 {
		return 0
	}
	if last := d[len(d)-1]; last == '-' || last == '_' {
		return 0
	}
	return i
}

func isAlnum(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}
