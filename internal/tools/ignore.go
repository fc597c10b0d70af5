package tools

import (
	"path"
	"strings"
)

// ignoreRule is one pattern line of a .gitignore or .git/info/exclude file,
// with git's meaning (gitignore(5)), which ripgrep shares.
type ignoreRule struct {
	dir      []string // the directory whose ignore file holds the rule, root-relative
	parts    []string // the pattern split at slashes; "**" parts span directories
	negate   bool     // "!pattern": re-include what an earlier rule ignored
	dirOnly  bool     // "pattern/": only directories
	anchored bool     // a slash before the end: matched from dir, not at any depth
}

// parseIgnoreRule parses one line of an ignore file in directory dir; ok is
// false for blank lines and comments.
func parseIgnoreRule(line string, dir []string) (r ignoreRule, ok bool) {
	line = trimIgnoreSpaces(line)
	if line == "" || line[0] == '#' {
		return r, false
	}
	if line[0] == '!' {
		r.negate, line = true, line[1:]
	}
	if strings.HasSuffix(line, "/") {
		r.dirOnly, line = true, strings.TrimSuffix(line, "/")
	}
	if strings.HasPrefix(line, "/") {
		r.anchored, line = true, line[1:]
	}
	if line == "" {
		return r, false
	}
	r.parts = strings.Split(line, "/")
	r.anchored = r.anchored || len(r.parts) > 1
	r.dir = dir[:len(dir):len(dir)]
	return r, true
}

// trimIgnoreSpaces drops trailing spaces, except one escaped with a
// backslash.
func trimIgnoreSpaces(line string) string {
	t := strings.TrimRight(line, " ")
	if len(t) < len(line) && strings.HasSuffix(t, `\`) && !strings.HasSuffix(t, `\\`) {
		return line[:len(t)+1]
	}
	return t
}

// match reports whether the rule matches the root-relative path p (split at
// slashes), a directory when isDir. Only p itself is matched, not its
// parents: the walk does not descend into an ignored directory.
func (r ignoreRule) match(p []string, isDir bool) bool {
	if len(p) <= len(r.dir) || r.dirOnly && !isDir {
		return false
	}
	for i, d := range r.dir {
		if p[i] != d {
			return false
		}
	}
	rel := p[len(r.dir):]
	if !r.anchored {
		ok, err := path.Match(r.parts[0], rel[len(rel)-1])
		return err == nil && ok
	}
	return matchParts(r.parts, rel)
}

// matchParts matches pattern parts against path components: "**" matches
// any number of whole components, and a final "**" at least one.
func matchParts(parts, p []string) bool {
	if len(parts) == 0 {
		return len(p) == 0
	}
	if parts[0] == "**" {
		if len(parts) == 1 {
			return len(p) > 0
		}
		for i := range len(p) + 1 {
			if matchParts(parts[1:], p[i:]) {
				return true
			}
		}
		return false
	}
	if len(p) == 0 {
		return false
	}
	ok, err := path.Match(parts[0], p[0])
	return err == nil && ok && matchParts(parts[1:], p[1:])
}

// ignored reports whether rules, in the order of increasing priority, ignore
// p: the last rule that matches decides.
func ignored(rules []ignoreRule, p []string, isDir bool) bool {
	for i := len(rules) - 1; i >= 0; i-- {
		if rules[i].match(p, isDir) {
			return !rules[i].negate
		}
	}
	return false
}
