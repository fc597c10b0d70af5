package policy

import (
	"path"
	"strings"
	"unicode"
)

// maxGrantPattern is the longest command offered as an Allow pattern; the
// board refuses longer patterns.
const maxGrantPattern = 1000

// GrantPattern returns the Allow pattern an "always" grant of command
// records, or "" when command is not one that a pattern can grant as
// itself alone: it must be one simple command of literal words
// (ParsePattern: no assignment, no redirection), with no * (a glob in a
// pattern), one line, at most 1000 bytes, its program named by its bare
// name. With c.Resolve set, the pattern names the program by the
// absolute path the name resolves to now ("make test" →
// "/usr/bin/make test"), so that it matches the bare name only while it
// still runs that file; a name that does not resolve, or resolves into
// the workspace, gets no pattern. Without c.Resolve the pattern is the
// command as written.
func GrantPattern(command string, c Config) string {
	if len(command) > maxGrantPattern || strings.ContainsAny(command, "*") ||
		strings.IndexFunc(command, unicode.IsControl) >= 0 {
		return ""
	}
	p, err := ParsePattern(command)
	if err != nil || p.path != "" {
		return ""
	}
	command = strings.TrimSpace(command)
	prog, rest, _ := strings.Cut(command, " ")
	if prog != p.words[0] || strings.ContainsAny(prog, `/\`) {
		return "" // the program word is quoted or a path
	}
	if c.Resolve == nil {
		return command
	}
	abs := c.Resolve(prog)
	if !plainPath(abs) || path.Base(abs) != prog {
		return ""
	}
	if inDir(abs, c.Workspace) {
		return ""
	}
	out := abs
	if rest != "" {
		out += " " + rest
	}
	if len(out) > maxGrantPattern {
		return ""
	}
	if q, err := ParsePattern(out); err != nil || q.path != abs {
		return ""
	}
	return out
}

// GrantHolds reports whether a grant recorded with pattern (an approval's
// Pattern) still lets command run: a command GrantPattern gives a
// pattern needs that same pattern now (the program resolves to the same
// file; an older grant that recorded the bare name, or none, is asked
// again), and a command it gives none while its program is a bare name
// (the name no longer resolves, or resolves into the workspace) is asked
// again. Other commands (pipelines, redirections, a program named by
// its path) are granted as the identical line, as before.
func GrantHolds(pattern, command string, c Config) bool {
	if c.Resolve == nil {
		return true
	}
	if now := GrantPattern(command, c); now != "" {
		return pattern == now
	}
	p, err := ParsePattern(command)
	if err != nil || p.path != "" || strings.ContainsAny(command, "*") {
		return true
	}
	return false
}

// plainPath reports whether p is a clean absolute path of characters a
// pattern can hold without quoting.
func plainPath(p string) bool {
	if p == "" || !strings.HasPrefix(p, "/") || path.Clean(p) != p {
		return false
	}
	for _, r := range p {
		if !(r == '/' || r == '.' || r == '_' || r == '-' || r == '+' ||
			r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') {
			return false
		}
	}
	return true
}
