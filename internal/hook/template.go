package hook

import (
	"encoding/json"
	"strings"
	"unicode/utf8"

	"github.com/bonsai-run/bonsai/internal/board"
)

// MissingError is a template's field the payload lacks.
type MissingError struct{ Path string }

func (e *MissingError) Error() string {
	return "the payload has no " + e.Path + " (a field the hook's template names)"
}

// Render replaces each {{path.to.field}} of tmpl with the payload's value
// there: a string as it is, a number or boolean as JSON writes it, an
// object or list as JSON, null as nothing. A path the payload lacks is a
// *MissingError naming it; "{{" without its "}}" stays as it is.
func Render(tmpl string, payload any) (string, error) {
	var b strings.Builder
	for {
		i := strings.Index(tmpl, "{{")
		if i < 0 {
			break
		}
		j := strings.Index(tmpl[i:], "}}")
		if j < 0 {
			break
		}
		b.WriteString(tmpl[:i])
		path := strings.TrimSpace(tmpl[i+2 : i+j])
		vals := lookupAll(payload, strings.Split(path, "."))
		if len(vals) == 0 {
			return "", &MissingError{Path: path}
		}
		b.WriteString(text(vals[0]))
		tmpl = tmpl[i+j+2:]
	}
	b.WriteString(tmpl)
	return b.String(), nil
}

func text(v any) string {
	if s, ok := str(v); ok {
		return s
	}
	if v == nil {
		return ""
	}
	raw, _ := json.Marshal(v)
	return string(raw)
}

// Paths lists the fields a template names, to check a hook's templates
// against a sample payload.
func Paths(tmpl string) []string {
	var out []string
	for {
		i := strings.Index(tmpl, "{{")
		if i < 0 {
			return out
		}
		j := strings.Index(tmpl[i:], "}}")
		if j < 0 {
			return out
		}
		out = append(out, strings.TrimSpace(tmpl[i+2:i+j]))
		tmpl = tmpl[i+j+2:]
	}
}

// Ticket is the ticket h's template makes of payload: its title on one
// line and cut to the board's limit, its description cut to the board's,
// its criteria (empty ones left out), priority and state. A field the
// payload lacks is a *MissingError.
func Ticket(h board.Hook, payload any) (board.Ticket, error) {
	title, err := Render(h.Title, payload)
	if err != nil {
		return board.Ticket{}, err
	}
	desc, err := Render(h.Description, payload)
	if err != nil {
		return board.Ticket{}, err
	}
	t := board.Ticket{ProjectSlug: h.ProjectSlug, Title: cut(strings.Join(strings.Fields(title), " "), board.MaxTitle),
		Description: cutBytes(desc, board.MaxDescription), Priority: h.Priority, State: h.State, Criteria: []string{}}
	if t.State == "" {
		t.State = board.Backlog
	}
	for _, c := range h.Criteria {
		c, err := Render(c, payload)
		if err != nil {
			return board.Ticket{}, err
		}
		if c = cut(strings.Join(strings.Fields(c), " "), board.MaxCriterion); c != "" && len(t.Criteria) < board.MaxCriteria {
			t.Criteria = append(t.Criteria, c)
		}
	}
	if strings.TrimSpace(t.Title) == "" {
		return board.Ticket{}, &MissingError{Path: strings.Join(Paths(h.Title), ", ") + " with text for the title"}
	}
	return t, nil
}

// cut keeps the first n runes of s.
func cut(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return string([]rune(s)[:n-1]) + "…"
}

// cutBytes keeps at most n bytes of s, on a rune boundary.
func cutBytes(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}
