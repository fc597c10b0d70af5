package tools

import (
	"strings"
	"unicode/utf8"
)

// region is a byte range [start, end) of the text being edited.
type region struct{ start, end int }

// findExact returns the non-overlapping occurrences of old in s.
func findExact(s, old string) []region {
	var out []region
	if old == "" {
		return nil
	}
	for i := 0; ; {
		j := strings.Index(s[i:], old)
		if j < 0 {
			return out
		}
		out = append(out, region{i + j, i + j + len(old)})
		i += j + len(old)
	}
}

// findForgiving finds old in s after normalizing both: trailing whitespace
// of every line is ignored, and typographic quotes, dashes and spaces count
// as their ASCII forms. Regions refer to the original s.
func findForgiving(s, old string) []region {
	o := normalize(old).s
	if strings.TrimSpace(o) == "" {
		return nil
	}
	n := normalize(s)
	var out []region
	for _, r := range findExact(n.s, o) {
		out = append(out, region{n.start[r.start], n.end[r.end-1]})
	}
	return out
}

// normText is a normalized string with, for every byte, the byte range of
// the original rune it came from.
type normText struct {
	s          string
	start, end []int
}

func normalize(s string) normText {
	var b strings.Builder
	b.Grow(len(s))
	start := make([]int, 0, len(s))
	end := make([]int, 0, len(s))
	lineStart := 0 // index in the output where the current line starts
	emit := func(r rune, from, to int) {
		n := utf8.RuneLen(r)
		if r < utf8.RuneSelf {
			b.WriteByte(byte(r))
		} else {
			b.WriteRune(r)
		}
		for range n {
			start = append(start, from)
			end = append(end, to)
		}
	}
	trim := func() {
		out := b.String()
		k := len(out)
		for k > lineStart && (out[k-1] == ' ' || out[k-1] == '\t' || out[k-1] == '\r') {
			k--
		}
		if k < len(out) {
			b.Reset()
			b.WriteString(out[:k])
			start, end = start[:k], end[:k]
		}
	}
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == '\n' {
			trim()
			emit('\n', i, i+1)
			lineStart = b.Len()
		} else {
			emit(fold(r), i, i+size)
		}
		i += size
	}
	trim()
	return normText{s: b.String(), start: start, end: end}
}

// fold maps typographic quotes, dashes and spaces to ASCII.
func fold(r rune) rune {
	switch r {
	case '\u2018', '\u2019', '\u201a', '\u201b', '\u2032':
		return '\''
	case '\u201c', '\u201d', '\u201e', '\u201f', '\u2033':
		return '"'
	case '\u2010', '\u2011', '\u2012', '\u2013', '\u2014', '\u2015', '\u2212':
		return '-'
	case '\u00a0', '\u2000', '\u2001', '\u2002', '\u2003', '\u2004', '\u2005', '\u2006',
		'\u2007', '\u2008', '\u2009', '\u200a', '\u202f', '\u205f', '\u3000':
		return ' '
	}
	return r
}

// closest finds the lines of s that look most like old, for a not-found
// message. It returns the 1-based first line and the lines, or 0 when
// nothing is similar.
func closest(s, old string) (int, []string) {
	lines := strings.Split(s, "\n")
	want := strings.Split(strings.TrimRight(normalize(old).s, "\n"), "\n")
	if len(want) > 50 {
		want = want[:50]
	}
	for i := range want {
		want[i] = strings.TrimSpace(want[i])
	}
	m := len(want)
	if m > len(lines) {
		m = len(lines)
		want = want[:m]
	}
	norm := make([]string, len(lines))
	for i, l := range lines {
		norm[i] = strings.TrimSpace(normalize(l).s)
	}
	best, bestAt := 0.0, -1
	for j := 0; j+m <= len(lines); j++ {
		score := 0.0
		for i := 0; i < m; i++ {
			score += similarity(norm[j+i], want[i])
		}
		if score > best {
			best, bestAt = score, j
		}
	}
	if bestAt < 0 || best < 0.4*float64(m) {
		return 0, nil
	}
	return bestAt + 1, lines[bestAt : bestAt+m]
}

// similarity is a cheap 0..1 likeness of two lines: the share of the longer
// one covered by their common prefix and suffix.
func similarity(a, b string) float64 {
	if a == b {
		return 1
	}
	la, lb := len(a), len(b)
	longest := max(la, lb)
	if longest == 0 {
		return 1
	}
	p := 0
	for p < la && p < lb && a[p] == b[p] {
		p++
	}
	q := 0
	for q < la-p && q < lb-p && a[la-1-q] == b[lb-1-q] {
		q++
	}
	return float64(p+q) / float64(longest)
}
