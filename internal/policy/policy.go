package policy

import (
	"fmt"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// Verdict is the outcome of judging a command. Larger is worse: Deny > Ask > Allow.
type Verdict int

const (
	// Allow lets the command run without asking anyone.
	Allow Verdict = iota
	// Ask holds the command until a person approves it.
	Ask
	// Deny refuses the command; no mode or pattern lifts it.
	Deny
)

// String returns "allow", "ask" or "deny".
func (v Verdict) String() string {
	switch v {
	case Allow:
		return "allow"
	case Ask:
		return "ask"
	case Deny:
		return "deny"
	}
	return fmt.Sprintf("verdict(%d)", int(v))
}

// Mode is how commands that no rule or pattern decides are judged.
type Mode string

const (
	// ModeAuto allows every command that is not denied and matches no Ask pattern.
	ModeAuto Mode = "auto"
	// ModeAsk asks for every command that is neither on the Allow list nor on
	// the built-in read-only list.
	ModeAsk Mode = "ask"
	// ModeReadOnly allows read-only commands, denies the ones known to change
	// files, refs, packages or processes, and asks for the rest.
	ModeReadOnly Mode = "read-only"
)

// Config is what Judge knows besides the command. The zero value judges in
// auto mode with no patterns.
type Config struct {
	// Allow and Ask are the project's patterns (see ParsePattern). Ask wins
	// when both match; a malformed pattern is ignored (Validate reports it).
	Allow, Ask []string
	// DataDir is the Bonsai data directory (absolute); any path argument or
	// redirection under it is denied.
	DataDir string
	// HomeDir is the home directory (absolute), used to resolve ~ and $HOME.
	HomeDir string
	// Workspace is the workspace root (absolute), which rm -r may not remove.
	Workspace string
	// Mode is auto, ask or read-only; empty means auto.
	Mode Mode
	// Resolve, when not nil, finds the program a bare name runs on the
	// sandbox's PATH as the host sees it: its absolute path, or "" when
	// the name is not found there or a directory the agent can write
	// comes first (see executor.ProgramResolver). An Allow pattern naming
	// an absolute path, as an always-grant records it (GrantPattern),
	// then also matches the bare name while the name resolves to that
	// path. nil: such a pattern matches only the path as written.
	Resolve func(name string) string
}

// Validate reports the first malformed pattern or unknown mode.
func (c Config) Validate() error {
	switch c.Mode {
	case "", ModeAuto, ModeAsk, ModeReadOnly:
	default:
		return fmt.Errorf("policy: unknown mode %q (want auto, ask or read-only)", c.Mode)
	}
	for _, list := range [][]string{c.Allow, c.Ask} {
		for _, s := range list {
			if _, err := ParsePattern(s); err != nil {
				return err
			}
		}
	}
	return nil
}

// ReadOnlyRule is the rule of an Allow decision given only because every
// simple command of the line reads (a program on the read-only list, no
// redirection that writes). The gate runs such a command where the
// workspace cannot be written (executor.RunOptions.ReadOnly), so that a
// writer the list missed cannot write.
const ReadOnlyRule = "read-only-builtin"

// Decision is the judgement of a whole command line.
type Decision struct {
	// Verdict is the worst verdict of any simple command.
	Verdict Verdict
	// Rule is the stable name of the rule that decided, e.g. "privilege-escalation".
	Rule string
	// Reason explains the decision to the model in one sentence.
	Reason string
	// Command is the simple command that decided, as the shell would print it.
	Command string
}

// String renders the decision on one line: "deny (privilege-escalation): reason: command".
func (d Decision) String() string {
	s := fmt.Sprintf("%s (%s): %s", d.Verdict, d.Rule, d.Reason)
	if d.Command != "" {
		s += ": " + d.Command
	}
	return s
}

// maxDepth bounds how deeply `bash -c` and eval strings are parsed again.
const maxDepth = 8

// Judge decides whether cmd may run under cfg. It never panics and does no I/O.
func Judge(cmd string, cfg Config) (d Decision) {
	defer func() {
		if r := recover(); r != nil {
			d = Decision{Verdict: Ask, Rule: "internal-error", Reason: fmt.Sprintf("the policy failed on this command (%v); a person must decide", r), Command: cmd}
		}
	}()
	j := newJudge(cfg)
	j.source(cmd, 0)
	return j.result()
}

// judge carries one Judge call's configuration and its worst decision so far.
type judge struct {
	cfg   Config
	allow []Pattern
	ask   []Pattern
	worst Decision
	seen  bool
	// dlMemo and shellMemo remember downloads and runsShell per statement.
	dlMemo, shellMemo map[*syntax.Stmt]bool
}

func newJudge(cfg Config) *judge {
	j := &judge{cfg: cfg, dlMemo: map[*syntax.Stmt]bool{}, shellMemo: map[*syntax.Stmt]bool{}}
	if j.cfg.Mode == "" {
		j.cfg.Mode = ModeAuto
	}
	j.allow = parsePatterns(cfg.Allow)
	j.ask = parsePatterns(cfg.Ask)
	return j
}

func parsePatterns(ss []string) []Pattern {
	var ps []Pattern
	for _, s := range ss {
		if p, err := ParsePattern(s); err == nil {
			ps = append(ps, p)
		}
	}
	return ps
}

// note records one decision; the first of the worst verdict is kept.
func (j *judge) note(d Decision) {
	// Among equal verdicts, a rule other than ReadOnlyRule wins, so that
	// a command is said to only read when every part of it only reads.
	if !j.seen || d.Verdict > j.worst.Verdict ||
		d.Verdict == j.worst.Verdict && j.worst.Rule == ReadOnlyRule && d.Rule != ReadOnlyRule {
		j.worst, j.seen = d, true
	}
}

func (j *judge) result() Decision {
	if !j.seen {
		return Decision{Verdict: Allow, Rule: "empty", Reason: "the command runs nothing"}
	}
	return j.worst
}

// source parses src and judges every statement in it.
func (j *judge) source(src string, depth int) {
	if depth > maxDepth {
		j.note(Decision{Verdict: Ask, Rule: "too-deep", Reason: fmt.Sprintf("shell strings nest more than %d levels deep", maxDepth), Command: src})
		return
	}
	f, err := parse(src)
	if err != nil {
		j.note(Decision{Verdict: Ask, Rule: "unparsable", Reason: "the command could not be parsed as a shell command: " + err.Error(), Command: src})
		return
	}
	for _, st := range f.Stmts {
		j.stmt(st, depth)
	}
}

func parse(src string) (f *syntax.File, err error) {
	defer func() {
		if r := recover(); r != nil {
			f, err = nil, fmt.Errorf("parser panic: %v", r)
		}
	}()
	return syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(src), "")
}

// maxShown bounds the source bytes printNode prints; printing every command
// of a deeply nested line in full would cost time quadratic in its length.
const maxShown = 4096

// printNode renders a node the way the shell would print it, on one line.
func printNode(n syntax.Node) string {
	if span := int(n.End().Offset()) - int(n.Pos().Offset()); span > maxShown {
		return fmt.Sprintf("(a command of %d bytes)", span)
	}
	var b strings.Builder
	if err := syntax.NewPrinter(syntax.Minify(true)).Print(&b, n); err != nil {
		return ""
	}
	return strings.TrimSpace(b.String())
}
