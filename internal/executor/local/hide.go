package local

import (
	"path/filepath"
	"strings"
)

// HidePaths rewrites the workspace root's host path in s, as commands print
// it (pwd, a compiler's absolute file names), the way the tools name paths:
// "<root>/src/a.go" becomes "src/a.go" and "<root>" alone ".". Both the
// root as given and with symlinks evaluated are rewritten; a longer path
// that merely starts like the root ("<root>0") is left alone. The bash
// tool passes its output through it, so the model is not shown the host's
// layout (docs/design.md §2) — a hygiene measure, not a boundary: a command can
// still print the path in another form.
func (l *Executor) HidePaths(s string) string {
	for _, root := range l.rootForms() {
		if strings.Contains(s, root) {
			s = hideRoot(s, root)
		}
	}
	return s
}

// rootForms returns the root's host forms, longest first, so that one
// form that is a prefix of another does not cut it.
func (l *Executor) rootForms() []string {
	forms := []string{filepath.ToSlash(l.root)}
	if g := filepath.ToSlash(l.given); g != forms[0] {
		forms = append(forms, g)
		if len(g) > len(forms[0]) {
			forms[0], forms[1] = forms[1], forms[0]
		}
	}
	return forms
}

// hideRoot rewrites root in s: followed by "/" it goes (the rest is a
// relative path), followed by the end or a character that cannot continue
// a path name it becomes ".".
func hideRoot(s, root string) string {
	var b strings.Builder
	for {
		i := strings.Index(s, root)
		if i < 0 {
			b.WriteString(s)
			return b.String()
		}
		b.WriteString(s[:i])
		rest := s[i+len(root):]
		switch {
		case strings.HasPrefix(rest, "/"):
			s = rest[1:]
			if s == "" || endsName(s[0]) {
				b.WriteString(".")
			}
		case rest == "" || endsName(rest[0]):
			b.WriteString(".")
			s = rest
		default: // a longer name that starts like the root
			b.WriteString(root)
			s = rest
		}
	}
}

// endsName reports whether c cannot be part of a path name as commands
// print one: white space, quotes and the punctuation around paths.
func endsName(c byte) bool {
	return strings.IndexByte(" \t\r\n'\"`:;,()[]{}<>|&", c) >= 0
}
