package policy

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// stmt judges one statement: its redirections, then every command in it.
func (j *judge) stmt(st *syntax.Stmt, depth int) {
	if st == nil {
		return
	}
	writes := false
	for _, r := range st.Redirs {
		if j.redirect(r, st) {
			writes = true
		}
	}
	visit := func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.Stmt:
			j.stmt(n, depth)
			return false
		case *syntax.CallExpr:
			j.assigns(n.Assigns, n)
			j.call(n, words(n.Args), writes, depth)
		case *syntax.DeclClause:
			j.assigns(n.Args, n)
			j.declSubscripts(n)
		case *syntax.TestClause:
			j.testClause(n)
		case *syntax.ForClause:
			if it, ok := n.Loop.(*syntax.WordIter); ok && it.Name != nil && changesRun(it.Name.Value) {
				j.envChange(it.Name.Value, "for "+it.Name.Value+" in …")
			}
		case *syntax.BinaryCmd:
			if n.Op == syntax.Pipe || n.Op == syntax.PipeAll {
				j.pipeline(n)
			}
		case *syntax.FuncDecl:
			j.funcDecl(n)
		}
		return true
	}
	for _, r := range st.Redirs {
		syntax.Walk(r, visit)
	}
	if st.Cmd == nil {
		return
	}
	j.stdinScript(st, depth)
	syntax.Walk(st.Cmd, visit)
	if _, ok := st.Cmd.(*syntax.CallExpr); !ok && writes {
		j.redirectOnly(st)
	}
}

// redirect judges one redirection and reports whether it writes a file.
func (j *judge) redirect(r *syntax.Redirect, st *syntax.Stmt) bool {
	if r.Word == nil {
		return false
	}
	w := wordOf(r.Word)
	if j.touchesData(w) {
		j.note(Decision{Verdict: Deny, Rule: "data-dir", Reason: "the Bonsai data directory is off limits to agent commands", Command: printNode(st)})
		return false
	}
	switch r.Op {
	case syntax.RdrOut, syntax.AppOut, syntax.RdrClob, syntax.AppClob, syntax.RdrAll,
		syntax.RdrAllClob, syntax.AppAll, syntax.AppAllClob, syntax.RdrInOut, syntax.DplOut:
	default:
		return false
	}
	if r.Op == syntax.DplOut && (w.text == "-" || isNumber(w.text)) {
		return false
	}
	if w.lit && isDisk(w.text) {
		j.note(Decision{Verdict: Deny, Rule: "raw-disk", Reason: "writing a raw disk device is never allowed", Command: printNode(st)})
		return false
	}
	return !(w.lit && harmlessSink(w.text))
}

// redirectOnly judges a write redirection on a compound command.
func (j *judge) redirectOnly(st *syntax.Stmt) {
	cmd := printNode(st)
	switch j.cfg.Mode {
	case ModeReadOnly:
		j.note(Decision{Verdict: Deny, Rule: "read-only-mode", Reason: "read-only mode: redirecting output into a file changes it", Command: cmd})
	case ModeAsk:
		j.note(Decision{Verdict: Ask, Rule: "ask-mode", Reason: "ask mode: redirecting output into a file needs approval", Command: cmd})
	}
}

func harmlessSink(p string) bool {
	switch p {
	case "/dev/null", "/dev/stdout", "/dev/stderr", "/dev/tty":
		return true
	}
	n, ok := strings.CutPrefix(p, "/dev/fd/")
	return ok && isNumber(n) // not /dev/fd/../../x, which is any file
}

func isNumber(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range s {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// pipeline denies a download piped into a shell or interpreter.
func (j *judge) pipeline(b *syntax.BinaryCmd) {
	stmts := flattenPipe(b)
	fetched := false
	for i, st := range stmts {
		if fetched && anyCall(st, j.shellMemo, runsShell) {
			j.note(Decision{Verdict: Deny, Rule: "download-to-shell", Reason: "piping a download into a shell runs unreviewed code", Command: printNode(b)})
			return
		}
		if j.downloads(st) {
			fetched = true
		}
		if c, ok := st.Cmd.(*syntax.CallExpr); ok && i > 0 && shellReadsStdin(words(c.Args)) {
			j.note(Decision{Verdict: Ask, Rule: "shell-from-stdin", Reason: "a shell reading its commands from a pipe cannot be judged", Command: printNode(b)})
		}
	}
}

// shellReadsStdin reports whether ws runs a shell that reads its commands
// from standard input: no -c and no script, or -s.
func shellReadsStdin(ws []word) bool {
	rest, _, _ := unwrap(ws)
	if len(rest) == 0 || !rest[0].lit || !shells[progName(rest[0].text)] {
		return false
	}
	for _, a := range rest[1:] {
		t := a.text
		switch {
		case t == "-s" || (strings.HasPrefix(t, "-") && !strings.HasPrefix(t, "--") && strings.Contains(t, "s")):
			return true
		case strings.HasPrefix(t, "-") && !strings.HasPrefix(t, "--") && strings.Contains(t, "c"):
			return false
		case !strings.HasPrefix(t, "-") && !strings.HasPrefix(t, "+"):
			return false // a script file
		}
	}
	return true
}

// stdinScript judges the here-document or here-string a shell reads its
// commands from: bash <<< 'cmd', sh <<EOF … EOF.
func (j *judge) stdinScript(st *syntax.Stmt, depth int) {
	c, ok := st.Cmd.(*syntax.CallExpr)
	if !ok || !shellReadsStdin(words(c.Args)) {
		return
	}
	for _, r := range st.Redirs {
		var w *syntax.Word
		switch r.Op {
		case syntax.WordHdoc:
			w = r.Word
		case syntax.Hdoc, syntax.DashHdoc:
			w = r.Hdoc
		default:
			continue
		}
		if s := wordOf(w); s.lit {
			j.source(s.text, depth+1)
		} else {
			j.note(Decision{Verdict: Ask, Rule: "dynamic-shell-string", Reason: "the script given to the shell on its input is not literal, so it cannot be judged", Command: printNode(st)})
		}
	}
}

func flattenPipe(b *syntax.BinaryCmd) []*syntax.Stmt {
	var out []*syntax.Stmt
	for _, st := range []*syntax.Stmt{b.X, b.Y} {
		if inner, ok := st.Cmd.(*syntax.BinaryCmd); ok && (inner.Op == syntax.Pipe || inner.Op == syntax.PipeAll) && len(st.Redirs) == 0 {
			out = append(out, flattenPipe(inner)...)
		} else {
			out = append(out, st)
		}
	}
	return out
}

// runsShell reports whether c runs a shell or interpreter.
func runsShell(c *syntax.CallExpr) bool {
	rest, _, _ := unwrap(words(c.Args))
	return len(rest) > 0 && rest[0].lit && (shells[progName(rest[0].text)] || interpreters[progName(rest[0].text)])
}

// funcDecl denies a function that calls itself in a pipe or in the background.
func (j *judge) funcDecl(f *syntax.FuncDecl) {
	if f.Name == nil || f.Body == nil {
		return
	}
	name := f.Name.Value
	calls := func(st *syntax.Stmt) bool {
		found := false
		syntax.Walk(st, func(n syntax.Node) bool {
			if c, ok := n.(*syntax.CallExpr); ok && len(c.Args) > 0 {
				if w := wordOf(c.Args[0]); w.text == name {
					found = true
				}
			}
			return !found
		})
		return found
	}
	bomb := false
	syntax.Walk(f.Body, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.BinaryCmd:
			if (n.Op == syntax.Pipe || n.Op == syntax.PipeAll) && (calls(n.X) || calls(n.Y)) {
				bomb = true
			}
		case *syntax.Stmt:
			if n.Background && calls(n) {
				bomb = true
			}
		}
		return !bomb
	})
	if bomb {
		j.note(Decision{Verdict: Deny, Rule: "fork-bomb", Reason: "a function that calls itself in a pipe or in the background is a fork bomb", Command: printNode(f)})
	}
}

// gitEnv names the environment variables that change how git authenticates,
// connects or reads its configuration.
var gitEnv = map[string]bool{
	"GIT_SSH": true, "GIT_SSH_COMMAND": true, "GIT_ASKPASS": true, "SSH_ASKPASS": true,
	"GIT_CONFIG_PARAMETERS": true, "GIT_CONFIG_COUNT": true, "GIT_CONFIG_GLOBAL": true,
	"GIT_CONFIG_SYSTEM": true, "GIT_CONFIG": true, "GIT_PROXY_COMMAND": true, "GIT_EXEC_PATH": true,
}

func isGitEnv(name string) bool {
	return gitEnv[name] || strings.HasPrefix(name, "GIT_CONFIG_KEY_") || strings.HasPrefix(name, "GIT_CONFIG_VALUE_")
}

// assigns denies setting git's connection or configuration variables and
// assignments into the data directory.
func (j *judge) assigns(as []*syntax.Assign, n syntax.Node) {
	for _, a := range as {
		if a.Value != nil && j.touchesData(wordOf(a.Value)) {
			j.note(deny("data-dir", "the Bonsai data directory is off limits to agent commands", printNode(n)))
		}
		name := assignName(a)
		if isGitEnv(name) {
			j.note(Decision{Verdict: Deny, Rule: "git-config-override", Reason: "changing how git connects or authenticates (" + name + ") is not allowed", Command: printNode(n)})
		} else if changesRun(name) && (a.Value != nil || a.Array != nil) && !a.Naked {
			j.envChange(name, printNode(n))
		} else if a.Naked && a.Value != nil && changesRun(name) && strings.Contains(wordOf(a.Value).text, "=") {
			j.envChange(name, printNode(n))
		}
	}
}

// assignName returns the variable an assignment sets; for a word given to
// declare or export as a whole ('PATH=x'), the name before its = or [.
func assignName(a *syntax.Assign) string {
	if a.Name != nil {
		return a.Name.Value
	}
	if a.Naked && a.Value != nil {
		t := wordOf(a.Value).text
		if i := strings.IndexAny(t, "=[+"); i >= 0 {
			t = t[:i]
		}
		return t
	}
	return ""
}

// declSubscripts asks, outside auto mode, for declare, local, export,
// readonly and typeset given a word bash reads as an array subscript it
// expands, running what it names: declare 'a[$(cmd)]=1', declare -n
// r='a[$(cmd)]'; also for a name computed at run time.
func (j *judge) declSubscripts(d *syntax.DeclClause) {
	for _, a := range d.Args {
		if a.Value == nil {
			continue
		}
		w := wordOf(a.Value)
		if a.Naked && strings.HasPrefix(w.text, "-") && w.lit {
			continue // an option
		}
		if (a.Naked && !w.lit) || evalsSubscript(w.text) {
			j.askUnlessAuto("subscript-eval", "bash expands an array subscript given as a string here, which can run a command, so a person must approve it", printNode(d))
			return
		}
	}
}

// testClause asks, outside auto mode, for [[ -v NAME ]] and arithmetic
// comparisons whose operand bash would expand as an array subscript:
// [[ -v 'a[$(cmd)]' ]], [[ 'a[$(cmd)]' -eq 1 ]].
func (j *judge) testClause(t *syntax.TestClause) {
	risky := false
	syntax.Walk(t, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.UnaryTest:
			if n.Op == syntax.TsVarSet {
				if w, ok := n.X.(*syntax.Word); ok && subscriptEscapes([]word{wordOf(w)}) {
					risky = true
				}
			}
		case *syntax.BinaryTest:
			switch n.Op {
			case syntax.TsEql, syntax.TsNeq, syntax.TsLeq, syntax.TsGeq, syntax.TsLss, syntax.TsGtr:
				for _, x := range []syntax.TestExpr{n.X, n.Y} {
					if w, ok := x.(*syntax.Word); ok && evalsSubscript(wordOf(w).text) {
						risky = true
					}
				}
			}
		}
		return !risky
	})
	if risky {
		j.askUnlessAuto("subscript-eval", "bash expands an array subscript inside [[ ]] here, which can run a command, so a person must approve it", printNode(t))
	}
}

// askUnlessAuto notes an ask in the ask and read-only modes; auto mode
// leaves the command to the sandbox.
func (j *judge) askUnlessAuto(rule, reason, cmd string) {
	if j.cfg.Mode != ModeAuto {
		j.note(Decision{Verdict: Ask, Rule: rule, Reason: reason, Command: cmd})
	}
}
