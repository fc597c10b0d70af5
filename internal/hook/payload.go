package hook

import (
	"bytes"
	"encoding/json"
	"fmt"
	"mime"
	"net/http"
	"net/url"
	"strconv"
	"strings"
)

func sprintf(format string, args ...any) string { return fmt.Sprintf(format, args...) }

// decode reads the payload: JSON, or GitHub's form encoding (its JSON
// in the field payload).
func decode(header http.Header, body []byte) (any, error) {
	ct, _, _ := mime.ParseMediaType(header.Get("Content-Type"))
	if ct == "application/x-www-form-urlencoded" {
		form, err := url.ParseQuery(string(body))
		if err != nil || form.Get("payload") == "" {
			return nil, invalid("a form-encoded delivery needs its JSON in the field payload")
		}
		body = []byte(form.Get("payload"))
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, invalid("the payload is not JSON: %v", err)
	}
	if dec.More() {
		return nil, invalid("the payload holds more than one JSON value")
	}
	return v, nil
}

// eventOf names a delivery's event: the sender's event and the payload's
// action ("issues.labeled"); GitLab's object kind ("issue.open").
func eventOf(scheme string, header http.Header, payload any) string {
	var ev, action string
	switch scheme {
	case "github":
		ev = header.Get("X-GitHub-Event")
	case "gitea":
		ev = header.Get("X-Gitea-Event")
		if ev == "" {
			ev = header.Get("X-Forgejo-Event")
		}
	case "gitlab":
		ev, _ = str(lookup(payload, "object_kind"))
		action, _ = str(lookup(payload, "object_attributes.action"))
		if ev == "" {
			ev = header.Get("X-Gitlab-Event")
		}
	default:
		ev = header.Get(EventHeader)
	}
	if action == "" {
		action, _ = str(lookup(payload, "action"))
	}
	if ev != "" && action != "" {
		return clipID(ev + "." + action)
	}
	return clipID(ev + action)
}

func clipID(s string) string {
	s = strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f {
			return -1
		}
		return r
	}, s)
	if len(s) > maxID {
		return s[:maxID]
	}
	return s
}

// Matches reports whether a delivery of event acts for a hook listening
// to events: none listens to all; "issues" takes every "issues.*".
func Matches(events []string, event string) bool {
	if len(events) == 0 {
		return true
	}
	for _, e := range events {
		if e == event || strings.HasPrefix(event, e+".") {
			return true
		}
	}
	return false
}

// When reports which of the conditions the payload fails, as a sentence;
// "" when every field holds its value. A path may cross a list with *:
// "issue.labels.*.name" holds "bonsai" when any label's name is.
func When(conds map[string]string, payload any) string {
	var failed []string
	for path, want := range conds {
		if !holds(lookupAll(payload, strings.Split(path, ".")), want) {
			failed = append(failed, fmt.Sprintf("%s is not %q", path, want))
		}
	}
	return strings.Join(sorted(failed), "; ")
}

func holds(vals []any, want string) bool {
	for _, v := range vals {
		if s, ok := str(v); ok && s == want {
			return true
		}
	}
	return false
}

func sorted(s []string) []string {
	for i := 1; i < len(s); i++ {
		for j := i; j > 0 && s[j] < s[j-1]; j-- {
			s[j], s[j-1] = s[j-1], s[j]
		}
	}
	return s
}

// lookup returns the value at a dotted path, or nil.
func lookup(v any, path string) any {
	vals := lookupAll(v, strings.Split(path, "."))
	if len(vals) == 0 {
		return nil
	}
	return vals[0]
}

// lookupAll returns the values at the path's segments; "*" crosses every
// element of a list.
func lookupAll(v any, segs []string) []any {
	if len(segs) == 0 {
		return []any{v}
	}
	seg, rest := segs[0], segs[1:]
	switch x := v.(type) {
	case map[string]any:
		if c, ok := x[seg]; ok {
			return lookupAll(c, rest)
		}
	case []any:
		if seg == "*" {
			var out []any
			for _, e := range x {
				out = append(out, lookupAll(e, rest)...)
			}
			return out
		}
		if i, err := strconv.Atoi(seg); err == nil && i >= 0 && i < len(x) {
			return lookupAll(x[i], rest)
		}
	}
	return nil
}

// str renders a scalar as text: strings as they are, numbers as JSON
// writes them, booleans; ok is false for null, objects and lists.
func str(v any) (string, bool) {
	switch x := v.(type) {
	case string:
		return x, true
	case json.Number:
		return x.String(), true
	case bool:
		return strconv.FormatBool(x), true
	}
	return "", false
}
