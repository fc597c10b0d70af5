package text

import (
	"bufio"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/bonsai-run/bonsai/internal/termsafe"
)

// cellSpace keeps a cell on one line of its column. A Replacer builds its
// tables on first use, so declaring it costs nothing at start-up.
var cellSpace = strings.NewReplacer("\t", " ", "\n", " ", "\r", " ")

// Table writes aligned columns, like gh's lists. The output is buffered:
// tabwriter writes every cell and its padding separately, thousands of
// system calls for a long list.
type Table struct {
	buf *bufio.Writer
	tw  *tabwriter.Writer
}

// NewTable returns a table writing to w, with header as its first row when
// one is given.
func NewTable(w io.Writer, header ...string) *Table {
	buf := bufio.NewWriter(w)
	t := &Table{buf: buf, tw: tabwriter.NewWriter(buf, 0, 0, 2, ' ', 0)}
	if len(header) > 0 {
		t.Row(header...)
	}
	return t
}

// Row adds a row; tabs and line breaks in a cell become spaces, and
// every other control character shows as an escape (termsafe.Line).
func (t *Table) Row(cols ...string) {
	for i, c := range cols {
		cols[i] = termsafe.Line(cellSpace.Replace(c))
	}
	fmt.Fprintln(t.tw, strings.Join(cols, "\t"))
}

// Flush aligns the rows and writes them out.
func (t *Table) Flush() error {
	if err := t.tw.Flush(); err != nil {
		return err
	}
	return t.buf.Flush()
}

// RelTime describes t relative to now, as "3 minutes ago".
func RelTime(now, t time.Time) string {
	if t.IsZero() {
		return "-"
	}
	d := now.Sub(t)
	if d < 0 {
		d = 0
	}
	plural := func(n int, unit string) string {
		if n == 1 {
			return fmt.Sprintf("1 %s ago", unit)
		}
		return fmt.Sprintf("%d %ss ago", n, unit)
	}
	switch {
	case d < time.Minute:
		return "just now"
	case d < time.Hour:
		return plural(int(d/time.Minute), "minute")
	case d < 24*time.Hour:
		return plural(int(d/time.Hour), "hour")
	case d < 48*time.Hour:
		return "yesterday"
	case d < 30*24*time.Hour:
		return plural(int(d/(24*time.Hour)), "day")
	}
	return t.Local().Format("Jan 2, 2006")
}

// Truncate shortens s to n runes, marking the cut with "…".
func Truncate(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}

// OneLine joins the lines of s and cuts it at n characters, for a
// terminal: the control characters left show as escapes (termsafe.Line).
func OneLine(s string, n int) string {
	return termsafe.Line(Truncate(strings.Join(strings.Fields(s), " "), n))
}

// Duration prints a run's duration compactly: "-" for none.
func Duration(d time.Duration) string {
	switch {
	case d <= 0:
		return "-"
	case d < time.Minute:
		return d.Round(100 * time.Millisecond).String()
	}
	return d.Round(time.Second).String()
}

// Indent puts prefix before every line of s.
func Indent(s, prefix string) string {
	return prefix + strings.ReplaceAll(s, "\n", "\n"+prefix)
}
