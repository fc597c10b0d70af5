package seatbelt

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"
	"unicode"
	"unicode/utf8"
)

// firmlinks are the top-level macOS directories that are symlinks into
// /private. Seatbelt matches the path the kernel resolved, so a rule on
// /tmp/x would never match: it must name /private/tmp/x.
var firmlinks = []string{"/tmp", "/var", "/etc"}

// Real returns the path Seatbelt sees for p, by this rule: p is cleaned;
// resolve (when not nil) evaluates its symlinks; then a path at or below
// /tmp, /var or /etc gets /private in front. The last step is what
// resolving gives on macOS anyway; doing it again keeps a path that does
// not exist yet, or a resolve that does not know the firmlinks, right.
func Real(p string, resolve func(string) (string, error)) (string, error) {
	p = filepath.Clean(p)
	if resolve != nil {
		r, err := resolve(p)
		if err != nil {
			return "", fmt.Errorf("seatbelt: resolve %s: %w", p, err)
		}
		p = filepath.Clean(r)
	}
	for _, f := range firmlinks {
		if p == f || strings.HasPrefix(p, f+"/") {
			return "/private" + p, nil
		}
	}
	return p, nil
}

// RealPath evaluates the symlinks of p's longest existing prefix and
// appends the rest, so a directory created later (a cache, a log) gets
// the real path of its parent.
func RealPath(p string) (string, error) {
	rest := ""
	for cur := filepath.Clean(p); ; {
		r, err := filepath.EvalSymlinks(cur)
		if err == nil {
			return filepath.Join(r, rest), nil
		}
		if !errors.Is(err, fs.ErrNotExist) {
			return "", err
		}
		parent := filepath.Dir(cur)
		if parent == cur {
			return filepath.Clean(p), nil
		}
		rest = filepath.Join(filepath.Base(cur), rest)
		cur = parent
	}
}

// quote returns s as an SBPL string literal. Backslashes and double quotes
// are escaped; control characters and invalid UTF-8 are refused rather
// than escaped, since no path Bonsai makes holds them and an escape the
// profile reader took differently would let a path end its string early.
func quote(s string) (string, error) {
	if !utf8.ValidString(s) {
		return "", fmt.Errorf("seatbelt: path %q is not valid UTF-8; rename it", s)
	}
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case unicode.IsControl(r):
			return "", fmt.Errorf("seatbelt: path %q holds a control character, which a profile cannot name; rename it", s)
		case r == '"' || r == '\\':
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	b.WriteByte('"')
	return b.String(), nil
}
