package schedule

import (
	"fmt"
	"strings"
	"time"

	"github.com/bonsai-run/bonsai/internal/board"
)

// Placeholders lists the title placeholders and what they become, for help
// texts.
const Placeholders = "{date} 2026-11-30, {time} 09:00, {year} 2026, {month} 2026-11, {week} 2026-W49, {weekday} Monday"

// placeholder renders one placeholder for the firing time t (in the
// schedule's zone).
func placeholder(name string, t time.Time) (string, bool) {
	switch name {
	case "date":
		return t.Format("2006-01-02"), true
	case "time":
		return t.Format("15:04"), true
	case "year":
		return t.Format("2006"), true
	case "month":
		return t.Format("2006-01"), true
	case "week":
		y, w := t.ISOWeek()
		return fmt.Sprintf("%d-W%02d", y, w), true
	case "weekday":
		return t.Weekday().String(), true
	}
	return "", false
}

// RenderTitle fills tmpl's placeholders for a firing at t, read in loc,
// and checks the result is a valid ticket title: an unknown placeholder or
// a title that renders empty is refused.
func RenderTitle(tmpl string, t time.Time, loc *time.Location) (string, error) {
	t = t.In(loc)
	var b strings.Builder
	rest := tmpl
	for {
		i := strings.IndexByte(rest, '{')
		if i < 0 {
			b.WriteString(rest)
			break
		}
		j := strings.IndexByte(rest[i:], '}')
		if j < 0 {
			b.WriteString(rest)
			break
		}
		name := rest[i+1 : i+j]
		v, ok := placeholder(name, t)
		if !ok {
			return "", board.Errorf(board.EINVALID, "title placeholder {%s} is unknown; use %s", name, Placeholders)
		}
		b.WriteString(rest[:i])
		b.WriteString(v)
		rest = rest[i+j+1:]
	}
	title := strings.TrimSpace(b.String())
	if title == "" {
		return "", board.Errorf(board.EINVALID, "title %q renders empty; give a title such as \"Update dependencies {date}\"", tmpl)
	}
	if err := board.ValidateTitle(title); err != nil {
		return "", err
	}
	return title, nil
}
