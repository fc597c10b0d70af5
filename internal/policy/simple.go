package policy

import (
	"path"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// call judges one simple command. node is nil for commands found inside
// another one's arguments (find -exec).
func (j *judge) call(node syntax.Node, ws []word, writes bool, depth int) {
	if len(ws) == 0 {
		return
	}
	cmd := joinTexts(ws)
	if node != nil {
		cmd = printNode(node)
	}
	for _, w := range ws {
		if j.touchesData(w) {
			j.note(deny("data-dir", "the Bonsai data directory is off limits to agent commands", cmd))
			return
		}
	}
	rest, envNames, how := unwrap(ws)
	for _, n := range envNames {
		if isGitEnv(n) {
			j.note(deny("git-config-override", "changing how git connects or authenticates ("+n+") is not allowed", cmd))
			return
		}
	}
	for _, n := range envNames {
		if changesRun(n) {
			j.envChange(n, cmd)
		}
	}
	if len(rest) == 0 {
		rest = ws[:1]
	}
	if !rest[0].lit || (strings.ContainsAny(rest[0].text, "*?[{") && rest[0].text != "[") {
		if recursiveRemoval(rest[1:], j.cfg) {
			j.note(deny("rm-rf-root", "the program name is computed and its arguments remove the root, the home or the workspace", cmd))
			return
		}
		j.note(Decision{Verdict: Ask, Rule: "dynamic-command", Reason: "the program name is not a literal word (a variable, substitution, glob or brace expansion), so the command cannot be judged", Command: cmd})
		return
	}
	name := progName(rest[0].text)
	if j.denied(name, rest, cmd, depth) {
		return
	}
	c := callInfo{prog: rest[0].text, writes: writes || how.writes, xargs: how.xargs, nested: node == nil, env: len(envNames) > 0}
	if ce, ok := node.(*syntax.CallExpr); ok {
		c.assigns = len(ce.Assigns) > 0
	}
	j.mode(name, rest, c, cmd)
}

// callInfo is what the mode needs to know about how a command is run
// besides its words.
type callInfo struct {
	prog    string // the program word as written: make, ./make, /usr/bin/make
	writes  bool   // a redirection writes a file
	xargs   bool   // xargs runs it, adding words from its input
	nested  bool   // another command runs it (find -exec)
	env     bool   // env sets variables for it
	assigns bool   // prefix assignments set variables for it
}

// exact reports whether an allow pattern may match the command: no prefix
// assignment, no variables set through env, no write redirection, not run
// by find -exec.
func (c callInfo) exact() bool {
	return !c.writes && !c.nested && !c.env && !c.assigns
}

func deny(rule, reason, cmd string) Decision {
	return Decision{Verdict: Deny, Rule: rule, Reason: reason, Command: cmd}
}

// mode decides a command no deny rule caught: Ask patterns, then the mode's
// mutating list, then Allow patterns, then the mode's default.
func (j *judge) mode(name string, ws []word, c callInfo, cmd string) {
	norm := append([]word{{text: name, lit: true}}, ws[1:]...)
	for _, p := range j.ask {
		if p.match(norm) {
			j.note(Decision{Verdict: Ask, Rule: "ask-pattern", Reason: "the project asks before running " + p.String(), Command: cmd})
			return
		}
	}
	if j.cfg.Mode == ModeReadOnly && (c.writes || mutating(name, ws)) {
		j.note(deny("read-only-mode", "read-only mode: this command changes files, refs, packages or processes, or runs a program it names", cmd))
		return
	}
	if c.exact() {
		for _, p := range j.allow {
			if p.allows(c.prog, j.cfg, c.xargs) && p.match(norm) {
				j.note(Decision{Verdict: Allow, Rule: "allow-pattern", Reason: "the project allows " + p.String(), Command: cmd})
				return
			}
		}
	}
	switch {
	case j.cfg.Mode == ModeAuto:
		j.note(Decision{Verdict: Allow, Rule: "auto-mode", Reason: "auto mode allows commands no rule denies", Command: cmd})
	case !j.systemProgram(c.prog):
		j.note(Decision{Verdict: Ask, Rule: "program-path", Reason: "the program is named by a path (" + c.prog + ") that may be a file the agent wrote, so a person must approve it", Command: cmd})
	case !c.writes && readOnly(name, ws) && !(argSensitive[name] && (c.xargs || c.nested || expandsArgs(ws[1:]))):
		j.note(Decision{Verdict: Allow, Rule: ReadOnlyRule, Reason: "the command only reads", Command: cmd})
	case j.cfg.Mode == ModeReadOnly:
		j.note(Decision{Verdict: Ask, Rule: "read-only-unknown", Reason: "read-only mode: this command is not known to only read, so it needs approval", Command: cmd})
	default:
		j.note(Decision{Verdict: Ask, Rule: "ask-mode", Reason: "ask mode: this command is not on the allow list, so it needs approval", Command: cmd})
	}
}

// systemDirsForPrograms are where a program named by an absolute path is
// taken as installed, not written by the agent: the sandbox mounts them
// read-only.
var systemProgramDirs = []string{"/usr/", "/bin/", "/sbin/", "/opt/", "/nix/store/", "/snap/bin/"}

// systemProgram reports whether prog is a bare name (found on PATH) or an
// absolute path in a system directory outside the workspace.
func (j *judge) systemProgram(prog string) bool {
	if !strings.ContainsAny(prog, `/\`) {
		return true
	}
	if !strings.HasPrefix(prog, "/") || strings.Contains(prog, `\`) {
		return false
	}
	p := path.Clean(prog)
	if j.inWorkspace(p) {
		return false
	}
	for _, d := range systemProgramDirs {
		if strings.HasPrefix(p, d) {
			return true
		}
	}
	return false
}

// unwrap strips wrappers (env, nohup, timeout, nice, command, exec, xargs,
// stdbuf, setsid, ionice, time, builtin, busybox) and returns the wrapped command
// and the variables env sets, and how the wrappers run it. It returns nil
// when a wrapper runs nothing.
func unwrap(ws []word) (rest []word, envNames []string, how wrapped) {
	for guard := 0; len(ws) > 0 && guard < 32; guard++ {
		if !ws[0].lit {
			return ws, envNames, how
		}
		args := ws[1:]
		switch progName(ws[0].text) {
		case "env":
			i := 0
			for ; i < len(args); i++ {
				a := args[i].text
				switch {
				case a == "-u" || a == "--unset" || a == "-C" || a == "--chdir":
					i++
				case a == "-S" || a == "--split-string" || strings.HasPrefix(a, "--split-string="):
					s := strings.TrimPrefix(a, "--split-string=")
					if s == a && i+1 < len(args) {
						s = args[i+1].text
					}
					return []word{{text: "sh", lit: true}, {text: "-c", lit: true}, {text: s, lit: args[min(i+1, len(args)-1)].lit}}, envNames, how
				case a == "--":
					i++
					goto envDone
				case strings.HasPrefix(a, "-"):
				case strings.Contains(a, "="):
					envNames = append(envNames, a[:strings.Index(a, "=")])
				default:
					goto envDone
				}
			}
		envDone:
			ws = args[min(i, len(args)):]
		case "busybox":
			ws = args
		case "nohup", "setsid", "builtin":
			ws = skipFlags(args, nil)
		case "command":
			if len(args) > 0 && (args[0].text == "-v" || args[0].text == "-V") {
				return nil, envNames, how
			}
			ws = skipFlags(args, nil)
		case "exec":
			ws = skipFlags(args, map[string]bool{"-a": true})
		case "nice":
			ws = skipFlags(args, map[string]bool{"-n": true, "--adjustment": true})
		case "ionice":
			ws = skipFlags(args, map[string]bool{"-c": true, "-n": true, "-p": true, "-P": true, "-u": true})
		case "stdbuf":
			ws = skipFlags(args, map[string]bool{"-i": true, "-o": true, "-e": true})
		case "time":
			how.writes = how.writes || timeWrites(args)
			ws = skipFlags(args, map[string]bool{"-f": true, "-o": true, "--format": true, "--output": true})
		case "timeout":
			ws = skipFlags(args, map[string]bool{"-s": true, "-k": true, "--signal": true, "--kill-after": true})
			if len(ws) > 0 {
				ws = ws[1:] // the duration
			}
		case "xargs":
			how.xargs = true
			ws = skipFlags(args, map[string]bool{"-n": true, "-L": true, "-I": true, "-P": true, "-d": true,
				"-s": true, "-E": true, "-a": true, "--max-args": true, "--max-lines": true, "--max-procs": true,
				"--delimiter": true, "--max-chars": true, "--arg-file": true, "--replace": true})
			if len(ws) == 0 {
				return []word{{text: "echo", lit: true}}, envNames, how
			}
		default:
			return ws, envNames, how
		}
	}
	return ws, envNames, how
}

// wrapped is how wrappers run a command.
type wrapped struct {
	xargs  bool // xargs adds words from its input
	writes bool // time -o writes a file
}

// timeWrites reports whether GNU time's own options write a file (-o, -a).
func timeWrites(args []word) bool {
	for i := 0; i < len(args) && strings.HasPrefix(args[i].text, "-"); i++ {
		switch t := args[i].text; {
		case t == "-o" || t == "-a" || t == "--append" || strings.HasPrefix(t, "--output"):
			return true
		case t == "-f" || t == "--format":
			i++
		case t == "--":
			return false
		}
	}
	return false
}

// skipFlags drops leading options; the ones in withArg take the next word
// (unless written as -xVALUE or --long=VALUE).
func skipFlags(ws []word, withArg map[string]bool) []word {
	for len(ws) > 0 {
		a := ws[0].text
		if a == "--" {
			return ws[1:]
		}
		if !strings.HasPrefix(a, "-") || a == "-" || !ws[0].lit {
			return ws
		}
		ws = ws[1:]
		if withArg[a] && len(ws) > 0 {
			ws = ws[1:]
		}
	}
	return ws
}
