package policy

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// word is one shell word as the policy sees it.
type word struct {
	// text is the word with quotes removed; a plain parameter reads as
	// $NAME, anything else computed as a placeholder such as $(…).
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
			switch {
			case p.Param != nil && simpleParam(p):
				b.WriteString("$" + p.Param.Value)
			case p.Param != nil:
				b.WriteString("${" + p.Param.Value + "…}")
			default:
				b.WriteString("${…}")
			}
		case *syntax.CmdSubst:
			lit = false
			b.WriteString("$(…)")
		case *syntax.ProcSubst:
			lit = false
			b.WriteString("<(…)")
		default:
			// Arithmetic and extended globs; their text is not needed, and
			// printing nested substitutions here would cost time per level.
			lit = false
			b.WriteString("$((…))")
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

// substs returns the outermost command and process substitutions in w.
func substs(w *syntax.Word) [][]*syntax.Stmt {
	if w == nil {
		return nil
	}
	var out [][]*syntax.Stmt
	syntax.Walk(w, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.CmdSubst:
			out = append(out, n.Stmts)
			return false
		case *syntax.ProcSubst:
			out = append(out, n.Stmts)
			return false
		}
		return true
	})
	return out
}

// fetches reports whether any substitution in w runs a download tool.
func (j *judge) fetches(w *syntax.Word) bool {
	for _, stmts := range substs(w) {
		for _, st := range stmts {
			if j.downloads(st) {
				return true
			}
		}
	}
	return false
}

// anyCall reports whether pred holds for a simple command anywhere in st,
// remembering the answer per statement in m so nested pipelines do not walk
// the same statements again.
func anyCall(st *syntax.Stmt, m map[*syntax.Stmt]bool, pred func(*syntax.CallExpr) bool) bool {
	if v, ok := m[st]; ok {
		return v
	}
	found := false
	syntax.Walk(st, func(n syntax.Node) bool {
		if found {
			return false
		}
		switch n := n.(type) {
		case *syntax.Stmt:
			if n != st {
				found = anyCall(n, m, pred)
				return false
			}
		case *syntax.CallExpr:
			found = pred(n)
		}
		return !found
	})
	m[st] = found
	return found
}

// downloads reports whether a download tool runs anywhere in st.
func (j *judge) downloads(st *syntax.Stmt) bool {
	return anyCall(st, j.dlMemo, isDownload)
}

func isDownload(c *syntax.CallExpr) bool {
	if len(c.Args) == 0 {
		return false
	}
	w := wordOf(c.Args[0])
	return w.lit && downloaders[progName(w.text)]
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

// simpleParam reports whether p is a bare $NAME or ${NAME}.
func simpleParam(p *syntax.ParamExp) bool {
	return p.Flags == nil && !p.Excl && !p.Length && !p.Width && !p.IsSet && p.NestedParam == nil &&
		p.Index == nil && len(p.Modifiers) == 0 && p.Slice == nil && p.Repl == nil && p.Names == 0 && p.Exp == nil
}
