package termsafe

import (
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"
)

// TestEveryC0AndDEL: each C0 control and DEL is escaped, on one line and
// in multi-line text, except the newline and tab Text keeps.
func TestEveryC0AndDEL(t *testing.T) {
	t.Parallel()
	named := map[byte]string{'\t': `\t`, '\n': `\n`, '\r': `\r`}
	for c := 0; c <= 0x7f; c++ {
		if c >= 0x20 && c < 0x7f {
			continue
		}
		want, ok := named[byte(c)]
		if !ok {
			want = fmt.Sprintf(`\x%02x`, c)
		}
		in := "a" + string(rune(c)) + "b"
		if got := Line(in); got != "a"+want+"b" {
			t.Errorf("Line(%q) = %q, want %q", in, got, "a"+want+"b")
		}
		wantText := "a" + want + "b"
		if c == '\n' || c == '\t' {
			wantText = in
		}
		if got := Text(in); got != wantText {
			t.Errorf("Text(%q) = %q, want %q", in, got, wantText)
		}
	}
}

// TestEveryC1: the C1 controls, written as UTF-8 characters, are escaped.
func TestEveryC1(t *testing.T) {
	t.Parallel()
	for r := rune(0x80); r <= 0x9f; r++ {
		want := fmt.Sprintf(`x\u%04x`, r)
		for _, f := range []func(string) string{Line, Text} {
			if got := f("x" + string(r)); got != want {
				t.Errorf("%U: got %q, want %q", r, got, want)
			}
		}
	}
}

// TestBidi: the embeddings, overrides, isolates and marks that reorder
// text are escaped, so a command reads on screen as it runs.
func TestBidi(t *testing.T) {
	t.Parallel()
	var rs []rune
	for r := rune(0x202a); r <= 0x202e; r++ {
		rs = append(rs, r)
	}
	for r := rune(0x2066); r <= 0x2069; r++ {
		rs = append(rs, r)
	}
	rs = append(rs, 0x200e, 0x200f, 0x061c, 0x2028, 0x2029)
	for _, r := range rs {
		want := fmt.Sprintf(`rm \u%04x-rf`, r)
		for _, f := range []func(string) string{Line, Text} {
			if got := f("rm " + string(r) + "-rf"); got != want {
				t.Errorf("%U: got %q, want %q", r, got, want)
			}
		}
	}
}

// TestCRLF: Text ends a CRLF line with a newline; a lone CR, which
// returns to the start of the line to draw over it, is escaped.
func TestCRLF(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"one\r\ntwo\r\n": "one\ntwo\n",
		"safe\rrm -rf ~": `safe\rrm -rf ~`,
		"a\r\r\nb":       "a\\r\nb",
		"end\r":          `end\r`,
	} {
		if got := Text(in); got != want {
			t.Errorf("Text(%q) = %q, want %q", in, got, want)
		}
	}
	if got := Line("a\r\nb"); got != `a\r\nb` {
		t.Errorf("Line kept a CRLF: %q", got)
	}
}

// TestKeepsText: printable ASCII and valid multi-byte text (accents, CJK,
// emoji, right-to-left letters, U+FFFD itself, the zero-width joiner)
// come back unchanged, and without a copy.
func TestKeepsText(t *testing.T) {
	t.Parallel()
	var ascii strings.Builder
	for c := 0x20; c < 0x7f; c++ {
		ascii.WriteByte(byte(c))
	}
	for _, s := range []string{
		"", ascii.String(), `C:\Users\x1b is a path`, "héllo wörld", "日本語のテキスト", "👩‍💻 done ✓",
		"שלום عالم", "\ufffd", "a\u00a0b", "line one\nline\ttwo",
	} {
		if got := Text(s); got != s {
			t.Errorf("Text(%q) = %q, want it unchanged", s, got)
		}
		if strings.ContainsAny(s, "\n\t") {
			continue
		}
		if got := Line(s); got != s {
			t.Errorf("Line(%q) = %q, want it unchanged", s, got)
		}
	}
}

// TestInvalidUTF8: each byte that is not part of a valid UTF-8 character
// is shown as \xNN; the valid text around it is kept.
func TestInvalidUTF8(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"a\xffb":           `a\xffb`,
		"\x9b31m":          `\x9b31m`, // an 8-bit CSI
		"é\xc3":            `é\xc3`,   // a character cut short
		"\xe2\x80":         `\xe2\x80`,
		"\xed\xa0\x80":     `\xed\xa0\x80`, // a surrogate
		"\xc0\xaf":         `\xc0\xaf`,     // an overlong slash
		"ok \xf0\x9f\x98":  `ok \xf0\x9f\x98`,
		"日\xff本":           `日\xff本`,
		"\x1b\xff\u202e\r": `\x1b\xff\u202e\r`,
	} {
		if got := Line(in); got != want {
			t.Errorf("Line(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestAttacks: the sequences of the red-team finding come out with no
// byte a terminal acts on.
func TestAttacks(t *testing.T) {
	t.Parallel()
	for _, in := range []string{
		"\x1b[2K\x1b[1A\rls -la",                             // erase the line, go up, overwrite
		"\x1b]8;;https://evil.example/\x07click\x1b]8;;\x07", // OSC 8 link
		"\x1b]52;c;ZWNobyBwd25lZA==\x07",                     // OSC 52 clipboard
		"\x1b]0;title\x1b\\",                                 // OSC with ST
		"\u009b2J\u009d0;x\u009c",                            // C1 CSI, OSC, ST
		"\x07\x08\x7f\x00",
		"echo safe\u202e;hs.lve/ptth | lruc",
	} {
		for name, f := range map[string]func(string) string{"Line": Line, "Text": Text} {
			out := f(in)
			if i := strings.IndexFunc(out, func(r rune) bool { return needsEscape(r, name == "Line") }); i >= 0 {
				t.Errorf("%s(%q) = %q: still holds %q", name, in, out, out[i:])
			}
			if !utf8.ValidString(out) {
				t.Errorf("%s(%q) = %q: not valid UTF-8", name, in, out)
			}
		}
	}
}

// TestNoCopy: text with nothing to escape is returned without a copy
// (AllocsPerRun cannot run in a parallel test).
func TestNoCopy(t *testing.T) {
	s := strings.Repeat("plain text, é and 日本 ", 100)
	if n := testing.AllocsPerRun(10, func() { _ = Line(s) }); n != 0 {
		t.Errorf("Line allocates %v times for text with nothing to escape", n)
	}
}

func BenchmarkLine(b *testing.B) {
	s := strings.Repeat("a comment with nothing to escape, é 日本. ", 50)
	for b.Loop() {
		_ = Line(s)
	}
}

// TestIdempotent: escaped text has nothing left to escape, so a field
// escaped by the renderer and again by the error printer reads the same.
func TestIdempotent(t *testing.T) {
	t.Parallel()
	in := "a\x1b[2K\r\n\t\u202e\u009b\xff\x00 日本"
	for _, f := range []func(string) string{Line, Text} {
		once := f(in)
		if twice := f(once); twice != once {
			t.Errorf("escaped twice: %q, once: %q", twice, once)
		}
	}
}
