package seatbelt

import (
	"strings"
	"testing"
)

// A reader of the SBPL the profile uses, for the tests: parentheses,
// "strings" with \" and \\ escapes, #"regexes", atoms and ; comments.
type tokKind int

const (
	tokOpen tokKind = iota
	tokClose
	tokString
	tokRegex
	tokAtom
)

type token struct {
	kind tokKind
	text string // a string's decoded value, else the token as written
}

// tokens splits a profile into tokens, failing on an unterminated string
// or unbalanced parentheses.
func tokens(t *testing.T, src string) []token {
	t.Helper()
	var out []token
	depth := 0
	for i := 0; i < len(src); {
		c := src[i]
		switch {
		case c == ' ' || c == '\n' || c == '\t':
			i++
		case c == ';':
			for i < len(src) && src[i] != '\n' {
				i++
			}
		case c == '(':
			depth++
			out = append(out, token{tokOpen, "("})
			i++
		case c == ')':
			depth--
			if depth < 0 {
				t.Fatalf("unbalanced ) at byte %d", i)
			}
			out = append(out, token{tokClose, ")"})
			i++
		case c == '"' || strings.HasPrefix(src[i:], `#"`):
			kind := tokString
			if c == '#' {
				kind, i = tokRegex, i+1
			}
			var b strings.Builder
			for i++; ; i++ {
				if i >= len(src) {
					t.Fatal("unterminated string")
				}
				if src[i] == '\\' && kind == tokString {
					i++
					b.WriteByte(src[i])
					continue
				}
				if src[i] == '"' {
					i++
					break
				}
				b.WriteByte(src[i])
			}
			out = append(out, token{kind, b.String()})
		default:
			j := i
			for j < len(src) && !strings.ContainsRune(" \n\t();\"", rune(src[j])) {
				j++
			}
			out = append(out, token{tokAtom, src[i:j]})
			i = j
		}
	}
	if depth != 0 {
		t.Fatalf("%d unclosed (", depth)
	}
	return out
}
