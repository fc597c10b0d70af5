package policy

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// word is one shell word as the policy sees it.
type word struct {
	// text is the word with quotes removed; parameters read as $NAME and
	// substitutions as the shell would print them.
	text string
	// lit is true when text is exactly what the shell would pass: no
	// parameter, substitution or arithmetic in it.
	lit bool
	// node is the parsed word, nil for words split out of a string.
	node *syntax.Word
}

func words(ws []*syntax.Word) []word {
	out := make([]word, len(ws))
	for i, w := range ws {
		out[i] = wordOf(w)
	}
	return out
}

func wordOf(w *syntax.Word) word {
	if w == nil {
		return word{lit: true}
	}
	var b strings.Builder
	lit := parts(&b, w.Parts, false)
	return word{text: b.String(), lit: lit, node: w}
}

// parts writes the parts' text to b and reports whether all were literal.
func parts(b *strings.Builder, ps []syntax.WordPart, quoted bool) bool {
	lit := true
	for _, p := range ps {
		switch p := p.(type) {
		case *syntax.Lit:
			b.WriteString(unescape(p.Value, quoted))
		case *syntax.SglQuoted:
			if p.Dollar {
				lit = false
			}
			b.WriteString(p.Value)
		case *syntax.DblQuoted:
			if !parts(b, p.Parts, true) {
				lit = false
			}
		case *syntax.ParamExp:
			lit = false
			if p.Short || (p.Param != nil && printNode(p) == "${"+p.Param.Value+"}") {
				b.WriteString("$" + p.Param.Value)
			} else {
				b.WriteString(printNode(p))
			}
		default:
			lit = false
			b.WriteString(printNode(p))
		}
	}
	return lit
}

// unescape removes the backslashes the shell would remove.
func unescape(s string, quoted bool) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '\\' || i+1 == len(s) {
			b.WriteByte(c)
			continue
		}
		n := s[i+1]
		if n == '\n' {
			i++
			continue
		}
		if quoted && !strings.ContainsRune("$`\"\\", rune(n)) {
			b.WriteByte(c)
			continue
		}
		b.WriteByte(n)
		i++
	}
	return b.String()
}

// substs returns the command and process substitutions inside w, outermost first.
func substs(w *syntax.Word) [][]*syntax.Stmt {
	if w == nil {
		return nil
	}
	var out [][]*syntax.Stmt
	syntax.Walk(w, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.CmdSubst:
			out = append(out, n.Stmts)
		case *syntax.ProcSubst:
			out = append(out, n.Stmts)
		}
		return true
	})
	return out
}

// fetches reports whether any substitution in w runs a download tool.
func fetches(w *syntax.Word) bool {
	for _, stmts := range substs(w) {
		for _, st := range stmts {
			if downloads(st) {
				return true
			}
		}
	}
	return false
}

// downloads reports whether a download tool runs anywhere in n.
func downloads(n syntax.Node) bool {
	found := false
	syntax.Walk(n, func(n syntax.Node) bool {
		if c, ok := n.(*syntax.CallExpr); ok && len(c.Args) > 0 {
			if w := wordOf(c.Args[0]); w.lit && downloaders[progName(w.text)] {
				found = true
			}
		}
		return !found
	})
	return found
}

// progName reduces a program path to its name: /usr/bin/sudo → sudo.
func progName(s string) string {
	if i := strings.LastIndexAny(s, `/\`); i >= 0 {
		s = s[i+1:]
	}
	return strings.TrimSuffix(strings.ToLower(s), ".exe")
}

func joinTexts(ws []word) string {
	t := make([]string, len(ws))
	for i, w := range ws {
		t[i] = w.text
	}
	return strings.Join(t, " ")
}
