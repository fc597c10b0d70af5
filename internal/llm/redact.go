package llm

import (
	"encoding/base64"
	"errors"
	"net/url"
	"sort"
	"strings"
)

// Redacted replaces a secret in redacted text.
const Redacted = "[redacted]"

// MinSecretLen is the shortest secret a [Redactor] replaces: replacing
// shorter strings would shred ordinary words.
const MinSecretLen = 8

// Redactor removes the secrets a process holds (API keys, forge tokens,
// the web token, passwords in base URLs) from text that came from outside
// before it is stored, shown or logged: a proxy or a hostile server may
// echo the request's headers in an error. A nil *Redactor redacts nothing.
// It is immutable and safe for concurrent use.
type Redactor struct {
	secrets []string // longest first, so a secret inside another goes after it
	repl    *strings.Replacer
}

// NewRedactor returns a Redactor of secrets; values shorter than
// [MinSecretLen] bytes (after trimming spaces) are ignored.
func NewRedactor(secrets ...string) *Redactor {
	return (*Redactor)(nil).With(secrets...)
}

// With returns a Redactor of r's secrets and more.
func (r *Redactor) With(more ...string) *Redactor {
	seen := map[string]bool{}
	var all []string
	add := func(s string) {
		s = strings.TrimSpace(s)
		if len(s) >= MinSecretLen && !seen[s] {
			seen[s] = true
			all = append(all, s)
		}
	}
	if r != nil {
		for _, s := range r.secrets {
			add(s)
		}
	}
	for _, s := range more {
		add(s)
	}
	sort.SliceStable(all, func(i, j int) bool { return len(all[i]) > len(all[j]) })
	pairs := make([]string, 0, 2*len(all))
	for _, s := range all {
		pairs = append(pairs, s, Redacted)
	}
	return &Redactor{secrets: all, repl: strings.NewReplacer(pairs...)}
}

// Len returns the number of secrets r holds.
func (r *Redactor) Len() int {
	if r == nil {
		return 0
	}
	return len(r.secrets)
}

// String returns s with every secret replaced by [Redacted].
func (r *Redactor) String(s string) string {
	if r == nil || len(r.secrets) == 0 {
		return s
	}
	return r.repl.Replace(s)
}

// Error returns err with its text redacted. An [*Error] stays an *Error
// (a copy whose Message is redacted), so callers still classify it; any
// other error holding a secret is wrapped in one whose text is redacted
// and which unwraps to err. Context errors and nil are returned as they
// are.
func (r *Redactor) Error(err error) error {
	if err == nil || r.Len() == 0 {
		return err
	}
	if e, ok := errors.AsType[*Error](err); ok && e == err {
		c := *e
		if c.Message == "" && c.Err != nil {
			c.Message = c.Err.Error()
		}
		c.Message = r.String(c.Message)
		if c.Err != nil && r.String(c.Err.Error()) != c.Err.Error() {
			c.Err = &redactedError{text: r.String(c.Err.Error()), err: c.Err}
		}
		return &c
	}
	if text := err.Error(); r.String(text) != text {
		return &redactedError{text: r.String(text), err: err}
	}
	return err
}

// redactedError is an error whose text was redacted.
type redactedError struct {
	text string
	err  error
}

func (e *redactedError) Error() string { return e.text }
func (e *redactedError) Unwrap() error { return e.err }

// URLSecrets returns the secrets a URL carries in its user info: the
// password, and the user:password pair as HTTP basic authentication
// encodes it (what a proxy echoing its request headers shows).
func URLSecrets(raw string) []string {
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil || u.User == nil {
		return nil
	}
	pw, ok := u.User.Password()
	if !ok || pw == "" {
		// A token alone in the user part (https://TOKEN@host) is a secret too.
		if name := u.User.Username(); name != "" {
			return []string{name, base64.StdEncoding.EncodeToString([]byte(name + ":"))}
		}
		return nil
	}
	return []string{pw, base64.StdEncoding.EncodeToString([]byte(u.User.Username() + ":" + pw))}
}

// HidePassword returns a URL for display without the password of its user
// info; an unreadable URL is returned with everything up to its last "@"
// removed.
func HidePassword(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		if i := strings.LastIndex(raw, "@"); i >= 0 {
			return raw[i+1:]
		}
		return raw
	}
	if u.User == nil {
		return raw
	}
	if _, ok := u.User.Password(); ok {
		return u.Redacted()
	}
	u.User = nil
	return u.String()
}
