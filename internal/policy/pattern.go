package policy

import (
	"errors"
	"fmt"
	"path"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// Pattern is a project's command pattern: one simple command whose words
// match the judged command's words in order. In a word, * matches any run of
// characters (slashes included); a lone * as the last word matches any
// number of further words, none included. "make" matches only a bare make;
// "make *" matches make with any arguments; "npm run test:*" matches
// npm run test:unit. The program word is matched against the command's
// program name (/usr/bin/go → go), after wrappers such as env and timeout.
type Pattern struct {
	src   string
	words []string
	rest  bool   // the last word was a lone *
	path  string // the program's absolute path, when the pattern names one
}

// String returns the pattern as written.
func (p Pattern) String() string { return p.src }

// ParsePattern parses one pattern. It refuses an empty pattern, one the shell
// cannot parse (unbalanced quotes), one that is not a single simple command
// (|, ;, &&, ||, &, redirections, subshells, substitutions, assignments) and
// one whose words are not literal ($VAR).
func ParsePattern(s string) (Pattern, error) {
	fail := func(why string) (Pattern, error) {
		return Pattern{}, fmt.Errorf("policy: pattern %q: %s", s, why)
	}
	if strings.TrimSpace(s) == "" {
		return fail("empty")
	}
	f, err := parse(s)
	if err != nil {
		var pe syntax.ParseError
		if errors.As(err, &pe) && pe.Incomplete {
			return fail("unbalanced quotes or brackets")
		}
		return fail("not a shell command: " + err.Error())
	}
	if len(f.Stmts) != 1 {
		return fail("must be one simple command (no ; or newline)")
	}
	st := f.Stmts[0]
	if st.Background || st.Negated || len(st.Redirs) > 0 {
		return fail("must be one simple command (no &, ! or redirection)")
	}
	c, ok := st.Cmd.(*syntax.CallExpr)
	if !ok {
		return fail("must be one simple command (no |, &&, ||, subshell or compound command)")
	}
	if len(c.Assigns) > 0 {
		return fail("must not assign variables")
	}
	p := Pattern{src: s}
	for _, w := range words(c.Args) {
		if !w.lit {
			return fail("words must be literal (no $VAR or substitution)")
		}
		p.words = append(p.words, w.text)
	}
	if strings.ContainsAny(p.words[0], "*?[") {
		return fail("the program name must be literal, not a glob")
	}
	if strings.ContainsAny(p.words[0], `/\`) {
		if !strings.HasPrefix(p.words[0], "/") {
			return fail("the program must be a name found on PATH (make) or an absolute path (/usr/bin/make), not a relative path, which may name a file the agent wrote")
		}
		p.path = path.Clean(p.words[0])
	}
	p.words[0] = progName(p.words[0])
	if n := len(p.words); n > 1 && p.words[n-1] == "*" {
		p.rest, p.words = true, p.words[:n-1]
	}
	return p, nil
}

// allows reports whether an Allow pattern may allow a command whose
// program is written as prog: the bare name for a pattern naming the
// program by its name (a path such as ./make may be a file the agent
// wrote); for a pattern naming an absolute path outside the workspace,
// the same path, or the bare name while c.Resolve finds that path for it.
// A command run by xargs, which adds words from its input, needs a
// pattern ending in a lone *.
func (p Pattern) allows(prog string, c Config, viaXargs bool) bool {
	if viaXargs && !p.rest {
		return false
	}
	bare := !strings.ContainsAny(prog, `/\`)
	switch {
	case p.path != "" && inDir(p.path, c.Workspace):
		return false
	case bare && c.Resolve != nil:
		found := c.Resolve(prog)
		return found != "" && !inDir(found, c.Workspace) && (p.path == "" || found == p.path)
	case p.path == "":
		return bare
	case bare:
		return false
	}
	return strings.HasPrefix(prog, "/") && path.Clean(prog) == p.path
}

// inDir reports whether the clean absolute path p is dir or below it; an
// empty dir holds nothing.
func inDir(p, dir string) bool {
	if dir == "" {
		return false
	}
	d := path.Clean(dir)
	return p == d || strings.HasPrefix(p, d+"/")
}

// match reports whether the command's words (program name first) match.
func (p Pattern) match(ws []word) bool {
	if len(p.words) == 0 || len(ws) < len(p.words) || (!p.rest && len(ws) != len(p.words)) {
		return false
	}
	for i, pw := range p.words {
		if !ws[i].lit || !globMatch(pw, ws[i].text) {
			return false
		}
	}
	return true
}

// globMatch matches s against a pattern in which * is any run of characters.
func globMatch(pat, s string) bool {
	if !strings.Contains(pat, "*") {
		return pat == s
	}
	parts := strings.Split(pat, "*")
	if !strings.HasPrefix(s, parts[0]) {
		return false
	}
	s = s[len(parts[0]):]
	last := parts[len(parts)-1]
	for _, mid := range parts[1 : len(parts)-1] {
		i := strings.Index(s, mid)
		if i < 0 {
			return false
		}
		s = s[i+len(mid):]
	}
	return len(s) >= len(last) && strings.HasSuffix(s, last)
}
