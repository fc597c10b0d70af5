package termsafe

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// Text returns s for a terminal, keeping its newlines and tabs, for the
// fields the layout prints on several lines (a description, a plan, a
// comment, a model's answer). A CRLF line end becomes a newline; every
// other control character, each invalid UTF-8 byte and each
// bidirectional formatting character is shown as an escape (see Line).
func Text(s string) string { return escape(s, false) }

// Line returns s for a terminal on one line (a title, a run's error, a
// cell of a table): like Text, with newlines and tabs escaped too ("\n",
// "\t"). The escapes are "\t", "\n" and "\r"; "\xNN" for the other C0
// controls, DEL and each byte that is not UTF-8; "\uNNNN" for the C1
// controls (U+0080–U+009F), the bidirectional embeddings, overrides,
// isolates and marks (U+202A–U+202E, U+2066–U+2069, U+200E, U+200F,
// U+061C) and the Unicode line and paragraph separators (U+2028,
// U+2029). A backslash is left as it is: the output is for reading, not
// for decoding.
func Line(s string) string { return escape(s, true) }

// escape writes s with the characters unsafe on a terminal escaped;
// oneLine escapes newlines and tabs too. Text with nothing to escape is
// returned as it is, without a copy.
func escape(s string, oneLine bool) string {
	i := firstUnsafe(s, oneLine)
	if i < 0 {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 8)
	b.WriteString(s[:i])
	for i < len(s) {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			writeHex(&b, s[i])
		case r == '\r' && !oneLine && strings.HasPrefix(s[i+1:], "\n"):
			// A CRLF line end is a line end: the CR draws nothing.
		case needsEscape(r, oneLine):
			writeEscape(&b, r)
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}

// firstUnsafe returns the index of the first byte of s to escape, or -1.
func firstUnsafe(s string, oneLine bool) int {
	for i := 0; i < len(s); {
		c := s[i]
		if c >= 0x20 && c < 0x7f {
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if (r == utf8.RuneError && size == 1) || needsEscape(r, oneLine) {
			return i
		}
		i += size
	}
	return -1
}

// needsEscape reports whether r is shown escaped.
func needsEscape(r rune, oneLine bool) bool {
	switch {
	case r == '\n' || r == '\t':
		return oneLine
	case r < 0x20 || r == 0x7f:
		return true // C0 controls, DEL
	case r >= 0x80 && r <= 0x9f:
		return true // C1 controls: CSI, OSC, ST and NEL as one character
	}
	return bidi(r) || r == '\u2028' || r == '\u2029'
}

// bidi reports whether r is a bidirectional formatting character: an
// embedding, override or isolate (U+202A–U+202E, U+2066–U+2069), which
// reorders the text after it, or a direction mark (U+200E, U+200F,
// U+061C).
func bidi(r rune) bool {
	switch {
	case r >= '\u202a' && r <= '\u202e', r >= '\u2066' && r <= '\u2069':
		return true
	}
	return r == '\u200e' || r == '\u200f' || r == '\u061c'
}

// writeEscape writes the visible escape of r.
func writeEscape(b *strings.Builder, r rune) {
	switch r {
	case '\n':
		b.WriteString(`\n`)
	case '\t':
		b.WriteString(`\t`)
	case '\r':
		b.WriteString(`\r`)
	default:
		if r < 0x80 {
			writeHex(b, byte(r))
			return
		}
		h := strconv.FormatInt(int64(r), 16)
		b.WriteString(`\u` + strings.Repeat("0", 4-len(h)) + h)
	}
}

// writeHex writes c as "\xNN".
func writeHex(b *strings.Builder, c byte) {
	const digits = "0123456789abcdef"
	b.WriteString(`\x`)
	b.WriteByte(digits[c>>4])
	b.WriteByte(digits[c&0xf])
}
