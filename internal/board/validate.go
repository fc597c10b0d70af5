package board

import (
	"strings"
	"unicode/utf8"
)

// Limits on ticket fields.
const (
	MaxSlug        = 40
	MaxTitle       = 200
	MaxDescription = 256 << 10
	MaxCriteria    = 50
	MaxCriterion   = 500
)

// ValidateSlug reports whether s is a valid project slug: 1 to 40 characters
// of a-z, 0-9 and "-".
func ValidateSlug(s string) error {
	if s == "" {
		return Errorf(EINVALID, "project slug is empty; use 1-%d characters of a-z, 0-9 and -", MaxSlug)
	}
	if len(s) > MaxSlug {
		return Errorf(EINVALID, "project slug %q is %d characters; the limit is %d", s, len(s), MaxSlug)
	}
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-') {
			return Errorf(EINVALID, "project slug %q has %q; use only a-z, 0-9 and -", s, r)
		}
	}
	return nil
}

// ValidateNewSlug reports whether s may name a new project: a valid slug
// that does not start with "-", which bonsai and git would read as an
// option ("bonsai ticket list -x"). Projects made before this rule keep
// their slugs: ValidateSlug still accepts them.
func ValidateNewSlug(s string) error {
	if err := ValidateSlug(s); err != nil {
		return err
	}
	if s[0] == '-' {
		return Errorf(EINVALID, "project slug %q starts with -, which commands would read as an option; start it with a-z or 0-9", s)
	}
	return nil
}

// ValidateTitle reports whether s is a valid ticket title: not blank, at
// most 200 characters, one line.
func ValidateTitle(s string) error {
	return validateText("title", s, MaxTitle)
}

// validateText checks a required one-line text field of at most max characters.
func validateText(field, s string, max int) error {
	if strings.TrimSpace(s) == "" {
		return Errorf(EINVALID, "%s is empty", field)
	}
	if !utf8.ValidString(s) {
		return Errorf(EINVALID, "%s is not valid UTF-8", field)
	}
	if n := utf8.RuneCountInString(s); n > max {
		return Errorf(EINVALID, "%s is %d characters; the limit is %d", field, n, max)
	}
	if strings.ContainsAny(s, "\r\n") {
		return Errorf(EINVALID, "%s must be one line", field)
	}
	return nil
}

// ValidatePriority reports whether p is between 0 (urgent) and 4 (none).
func ValidatePriority(p int) error {
	if p < PriorityUrgent || p > PriorityNone {
		return Errorf(EINVALID, "priority %d is out of range; use 0 (urgent), 1 (high), 2 (medium), 3 (low) or 4 (none)", p)
	}
	return nil
}

// ValidateCriteria reports whether every acceptance criterion is a short,
// non-blank statement.
func ValidateCriteria(cs []string) error {
	if len(cs) > MaxCriteria {
		return Errorf(EINVALID, "%d acceptance criteria; the limit is %d", len(cs), MaxCriteria)
	}
	for i, c := range cs {
		if strings.TrimSpace(c) == "" {
			return Errorf(EINVALID, "acceptance criterion %d is empty", i+1)
		}
		if n := utf8.RuneCountInString(c); n > MaxCriterion {
			return Errorf(EINVALID, "acceptance criterion %d is %d characters; the limit is %d", i+1, n, MaxCriterion)
		}
	}
	return nil
}

// ValidateBranch reports whether s is a plausible git branch name.
func ValidateBranch(s string) error {
	if s == "" {
		return Errorf(EINVALID, "branch is empty")
	}
	if strings.HasPrefix(s, "-") || strings.HasPrefix(s, "/") || strings.HasSuffix(s, "/") ||
		strings.HasSuffix(s, ".lock") || strings.Contains(s, "..") || strings.Contains(s, "@{") ||
		strings.ContainsAny(s, " ~^:?*[\\\x7f") || hasControl(s) {
		return Errorf(EINVALID, "branch %q is not a valid git branch name", s)
	}
	return nil
}

// ValidateModelID reports whether s is empty (use the default) or looks like
// "provider/model".
func ValidateModelID(s string) error {
	if s == "" {
		return nil
	}
	provider, model, ok := strings.Cut(s, "/")
	if !ok || provider == "" || model == "" || strings.ContainsAny(s, " \t\r\n") {
		return Errorf(EINVALID, "model %q must look like provider/model, e.g. anthropic/claude-sonnet-4-5", s)
	}
	return nil
}

func hasControl(s string) bool {
	for _, r := range s {
		if r < 0x20 {
			return true
		}
	}
	return false
}
