package policy

import "strings"

// sedEscapes reports whether a sed command writes a file or runs a program:
// in place (-i, --in-place), a script from a file (-f) or computed at run
// time, or a script using the e, w or W commands or the e or w flag of s.
// --sandbox makes GNU sed refuse e, w and r, so then only -i counts.
func sedEscapes(args []word) bool {
	if sedInPlace(args) {
		return true
	}
	sandbox := hasOpt(args, "--sandbox")
	var scripts []word
	explicit := false
	for i := 0; i < len(args); i++ {
		a := args[i]
		t := a.text
		switch {
		case t == "--":
			if !explicit && i+1 < len(args) {
				scripts = append(scripts, args[i+1])
			}
			i = len(args)
		case t == "--expression" || t == "--file":
			explicit = true
			if i+1 < len(args) {
				scripts = append(scripts, word{text: args[i+1].text, lit: args[i+1].lit && t == "--expression"})
			}
			i++
		case strings.HasPrefix(t, "--expression="):
			explicit = true
			scripts = append(scripts, word{text: strings.TrimPrefix(t, "--expression="), lit: a.lit})
		case strings.HasPrefix(t, "--file="):
			explicit = true
			scripts = append(scripts, word{})
		case t == "--line-length":
			i++
		case strings.HasPrefix(t, "--"):
		case strings.HasPrefix(t, "-") && len(t) > 1:
			k := strings.IndexAny(t, "efl")
			if k < 0 {
				continue
			}
			if t[k] == 'l' {
				if k+1 == len(t) {
					i++ // the line length
				}
				continue
			}
			explicit = true
			var s word
			switch {
			case k+1 < len(t):
				s = word{text: t[k+1:], lit: a.lit}
			case i+1 < len(args):
				i++
				s = args[i]
			default:
				return true
			}
			if t[k] == 'f' {
				s = word{} // a script file cannot be read here
			}
			scripts = append(scripts, s)
		case !explicit:
			scripts = append(scripts, a)
			explicit = true
		}
	}
	if sandbox {
		return false
	}
	for _, s := range scripts {
		if !s.lit || sedScriptEscapes(s.text) {
			return true
		}
	}
	return false
}

// sedInPlace reports -i or --in-place, alone or in a cluster (-ni, -i.bak).
func sedInPlace(args []word) bool {
	return hasOpt(args, "--in-place") || hasCluster(args, "i", "efl")
}

// sedScriptEscapes reads a sed script the way GNU sed does and reports
// whether it uses e, w or W, or s with the e or w flag. A script it cannot
// read counts as escaping. Like GNU, BSD and BusyBox sed, it does not end a
// regular expression at a delimiter inside a bracket expression
// (s/[^/]*/x/).
func sedScriptEscapes(s string) bool {
	p := &sedParser{s: s}
	for {
		p.skip(" \t\n;")
		if p.eof() {
			return false
		}
		if p.peek() == '#' {
			p.toEOL()
			continue
		}
		if !p.address() {
			return true
		}
		p.skip(" \t")
		if p.peek() == '!' {
			p.i++
			p.skip(" \t")
		}
		if p.eof() {
			return true
		}
		c := p.next()
		switch {
		case strings.ContainsRune("{}=dDgGhHnNpPxzF", rune(c)):
		case strings.ContainsRune("qQlL", rune(c)):
			p.skip(" \t0123456789")
		case strings.ContainsRune(":btTv", rune(c)):
			p.toAny(";\n")
		case strings.ContainsRune("aic", rune(c)):
			p.text()
		case c == 'r' || c == 'R':
			p.toEOL()
		case c == 's':
			if p.sub() {
				return true
			}
		case c == 'y':
			d := p.next()
			if d == 0 || !p.delimited(d) || !p.delimited(d) {
				return true
			}
		default: // e, w, W and anything unknown
			return true
		}
	}
}

// sedParser walks a sed script.
type sedParser struct {
	s string
	i int
}

func (p *sedParser) eof() bool { return p.i >= len(p.s) }

func (p *sedParser) peek() byte {
	if p.eof() {
		return 0
	}
	return p.s[p.i]
}

func (p *sedParser) next() byte {
	c := p.peek()
	if !p.eof() {
		p.i++
	}
	return c
}

func (p *sedParser) skip(set string) {
	for !p.eof() && strings.IndexByte(set, p.s[p.i]) >= 0 {
		p.i++
	}
}

func (p *sedParser) toAny(set string) {
	for !p.eof() && strings.IndexByte(set, p.s[p.i]) < 0 {
		p.i++
	}
}

func (p *sedParser) toEOL() { p.toAny("\n") }

// text skips the text of a, i or c: to the end of the line, a line ending
// in a backslash continuing it.
func (p *sedParser) text() {
	for !p.eof() {
		c := p.next()
		if c == '\\' {
			p.next()
		} else if c == '\n' {
			return
		}
	}
}

// delimited skips a part ending in the delimiter d, backslashes escaping;
// it reports whether the delimiter was found.
func (p *sedParser) delimited(d byte) bool {
	for !p.eof() {
		c := p.next()
		switch c {
		case '\\':
			p.next()
		case d:
			return true
		}
	}
	return false
}

// regex skips a regular expression ending in the delimiter d, like
// delimited, skipping bracket expressions whole.
func (p *sedParser) regex(d byte) bool {
	for !p.eof() {
		c := p.next()
		switch c {
		case '\\':
			p.next()
		case '[':
			p.bracket()
		case d:
			return true
		}
	}
	return false
}

// bracket skips a bracket expression after its [: a leading ^ and ], and
// classes such as [:alpha:], up to the closing ].
func (p *sedParser) bracket() {
	if p.peek() == '^' {
		p.i++
	}
	if p.peek() == ']' {
		p.i++
	}
	for !p.eof() {
		c := p.next()
		if c == '[' && (p.peek() == ':' || p.peek() == '.' || p.peek() == '=') {
			end := string([]byte{p.next(), ']'})
			if k := strings.Index(p.s[p.i:], end); k >= 0 {
				p.i += k + 2
			}
			continue
		}
		if c == ']' {
			return
		}
	}
}

// address skips zero, one or two addresses; false when one is malformed.
func (p *sedParser) address() bool {
	if !p.oneAddress() {
		return false
	}
	p.skip(" \t")
	if p.peek() == ',' {
		p.i++
		p.skip(" \t")
		if p.peek() == '+' || p.peek() == '~' {
			p.i++
		}
		return p.oneAddress()
	}
	return true
}

func (p *sedParser) oneAddress() bool {
	switch c := p.peek(); {
	case c >= '0' && c <= '9':
		p.skip("0123456789")
		if p.peek() == '~' {
			p.i++
			p.skip("0123456789")
		}
	case c == '$':
		p.i++
	case c == '/' || c == '\\':
		p.i++
		d := byte('/')
		if c == '\\' {
			d = p.next()
		}
		if d == 0 || d == '\n' || !p.regex(d) {
			return false
		}
		p.skip("IM")
	}
	return true
}

// sub skips an s command after the s and reports whether its flags run a
// program (e) or write a file (w).
func (p *sedParser) sub() bool {
	d := p.next()
	if d == 0 || d == '\n' || d == '\\' || !p.regex(d) || !p.delimited(d) {
		return true
	}
	for !p.eof() {
		switch c := p.peek(); {
		case c == 'e' || c == 'w':
			return true
		case c == 'g' || c == 'p' || c == 'i' || c == 'I' || c == 'm' || c == 'M' || (c >= '0' && c <= '9'):
			p.i++
		default:
			return false
		}
	}
	return false
}
