package policy

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// escapes reports whether a command on the read-only list is given an
// option or a script that runs a program, loads code or writes a file: the
// documented escapes of the list's programs (sed's e and w commands, rg
// --pre, git --output, go vet -vettool, less -o, …). Such a command is not
// read-only: read-only mode denies it, ask mode asks.
func escapes(name string, args []word) bool {
	switch name {
	case "sed":
		return sedEscapes(args)
	case "rg":
		return hasOpt(args, "--pre", "--pre-glob", "--hostname-bin")
	case "ag":
		return hasOpt(args, "--pager")
	case "ack":
		return hasOpt(args, "--output", "--pager", "--ackrc", "--env")
	case "less":
		return hasOpt(args, "--log-file", "--LOG-FILE", "--lesskey-file", "--lesskey-src", "--lesskey-content") ||
			hasCluster(args, "oOk", "bhjpPtTxyzD#") || hasPlus(args)
	case "tree":
		return hasCluster(args, "oR", "LPIHT")
	case "file":
		return hasOpt(args, "--compile") || hasCluster(args, "C", "eFfmP")
	case "fd", "fdfind":
		return hasOpt(args, "--exec", "--exec-batch") || hasCluster(args, "xX", "etEdjScCo")
	case "sort":
		return hasOpt(args, "--output", "--compress-program") || hasCluster(args, "o", "ktST")
	case "date":
		return hasOpt(args, "--set") || hasCluster(args, "s", "dfrI")
	case "find":
		return hasAny(args, "-delete", "-fprint", "-fprint0", "-fprintf", "-fls")
	case "uniq":
		return positional(args) > 1
	case "printf":
		return varNameEscapes(flagValues(args, "-v"))
	case "test", "[":
		return subscriptEscapes(flagValues(args, "-v"))
	case "git":
		return gitEscapes(args)
	case "go":
		return goEscapes(args)
	}
	return false
}

// argSensitive are the read-only programs whose arguments can make them run
// or write something: an argument the shell computes at run time (a glob
// matching a file named --pre=./x, or xargs' input) may be such an option.
var argSensitive = set("sed", "rg", "ag", "ack", "less", "more", "tree", "file", "fd", "fdfind", "sort", "date",
	"find", "uniq", "git", "go", "hostname", "env", "command", "nohup")

// hasOpt reports whether a long option is given, alone or as --opt=value.
func hasOpt(args []word, opts ...string) bool {
	for _, a := range args {
		if a.text == "--" {
			return false
		}
		for _, o := range opts {
			if a.text == o || strings.HasPrefix(a.text, o+"=") {
				return true
			}
		}
	}
	return false
}

// hasCluster reports whether a short option in want is given, also inside
// a cluster such as -no; a letter in withArg takes the rest of its word as
// its value, so letters after it are not options.
func hasCluster(args []word, want, withArg string) bool {
	for _, a := range args {
		t := a.text
		if t == "--" {
			return false
		}
		if len(t) < 2 || t[0] != '-' || t[1] == '-' {
			continue
		}
		for _, c := range t[1:] {
			if strings.ContainsRune(want, c) {
				return true
			}
			if strings.ContainsRune(withArg, c) {
				break
			}
		}
	}
	return false
}

// hasPlus reports whether an argument is a +command (less runs it as its
// first command, and less's commands include a shell escape).
func hasPlus(args []word) bool {
	for _, a := range args {
		if strings.HasPrefix(a.text, "+") {
			return true
		}
	}
	return false
}

// flagValues returns the values given to a short option: -v NAME or -vNAME.
func flagValues(args []word, opt string) []word {
	var out []word
	for i, a := range args {
		switch {
		case a.text == opt && i+1 < len(args):
			out = append(out, args[i+1])
		case strings.HasPrefix(a.text, opt) && len(a.text) > len(opt):
			out = append(out, word{text: a.text[len(opt):], lit: a.lit})
		}
	}
	return out
}

// varNameEscapes reports whether a variable name given to a builtin would
// run code (an array subscript is expanded: test -v 'a[$(cmd)]'; a name
// computed at run time may be one) or set a variable that changes what
// runs (printf -v PATH …).
func varNameEscapes(names []word) bool {
	for _, n := range names {
		base, _, _ := strings.Cut(n.text, "[")
		if !n.lit || evalsSubscript(n.text) || changesRun(base) {
			return true
		}
	}
	return false
}

// subscriptEscapes reports whether a name tested with -v would run code: a
// subscript bash expands, or a name computed at run time.
func subscriptEscapes(names []word) bool {
	for _, n := range names {
		if !n.lit || evalsSubscript(n.text) {
			return true
		}
	}
	return false
}

// evalsSubscript reports whether s holds an array subscript bash would
// expand, running what it names: a[$(cmd)], a[`cmd`], a[$x].
func evalsSubscript(s string) bool {
	i := strings.IndexByte(s, '[')
	return i >= 0 && strings.ContainsAny(s[i:], "$`")
}

// gitSafeGlobal are git's global options that change neither what git runs
// nor which configuration it reads.
var gitSafeGlobal = set("--no-pager", "-P", "--no-optional-locks", "--literal-pathspecs", "--glob-pathspecs",
	"--noglob-pathspecs", "--icase-pathspecs", "--no-replace-objects", "--no-lazy-fetch", "--no-advice",
	"--version", "--help", "--html-path", "--man-path", "--info-path", "--exec-path")

// gitEscapes reports whether a git command runs a program or writes a file
// through its options: -c and --config-env (any key), --exec-path=DIR,
// --git-dir, --work-tree, --bare, the pager; --output=FILE, --ext-diff,
// --textconv, grep's -O/--open-files-in-pager, cat-file --filters and
// help's browser and viewers.
func gitEscapes(args []word) bool {
	i := 0
	for ; i < len(args) && strings.HasPrefix(args[i].text, "-"); i++ {
		switch t := args[i].text; {
		case t == "-C":
			i++
		case gitSafeGlobal[t]:
		default:
			return true
		}
	}
	if i >= len(args) {
		return false
	}
	sub, rest := args[i].text, args[i+1:]
	if hasOpt(rest, "--output", "--ext-diff", "--textconv", "--filters", "--open-files-in-pager") {
		return true
	}
	switch sub {
	case "grep":
		return hasCluster(rest, "O", "ABCefm")
	case "help":
		return hasOpt(rest, "--web", "--info", "--man") || hasCluster(rest, "wim", "")
	}
	return false
}

// goEscapes reports whether a go command runs a program it names or writes
// a file: -vettool, -toolexec, -exec, -pkgdir, -mod=mod, doc -http, env -w.
func goEscapes(args []word) bool {
	if len(args) > 0 && args[0].text == "env" && hasAny(args, "-w", "-u") {
		return true
	}
	for _, a := range args {
		t := a.text
		if strings.HasPrefix(t, "--") {
			t = t[1:]
		}
		for _, o := range []string{"-vettool", "-toolexec", "-exec", "-pkgdir", "-ldflags", "-gccgoflags", "-compiler", "-http"} {
			if t == o || strings.HasPrefix(t, o+"=") {
				return true
			}
		}
		if t == "-mod=mod" || (t == "-mod" && hasAny(args, "mod")) {
			return true
		}
	}
	return false
}

// hasGlob reports whether the shell expands w into words at run time: an
// unquoted glob or brace expansion, which can produce an option from a
// file's name (a file named --pre=./x).
func hasGlob(w *syntax.Word) bool {
	if w == nil {
		return false
	}
	for _, p := range w.Parts {
		switch p := p.(type) {
		case *syntax.Lit:
			if strings.ContainsAny(p.Value, "*?[") || (strings.Contains(p.Value, "{") && strings.ContainsAny(p.Value, ",.")) {
				return true
			}
		case *syntax.ExtGlob, *syntax.BraceExp:
			return true
		}
	}
	return false
}

// expandsArgs reports whether an argument of a command is computed at run
// time, so that it may be an option the policy cannot see: a glob, a brace
// expansion, a parameter or a substitution, before a literal --.
func expandsArgs(args []word) bool {
	for _, a := range args {
		if a.text == "--" && a.lit {
			return false
		}
		if !a.lit || hasGlob(a.node) {
			return true
		}
	}
	return false
}
