package cli

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"
)

// writeJSON writes v as indented JSON followed by a newline.
func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// cellSpace keeps a cell on one line of its column. A Replacer builds its
// tables on first use, so declaring it costs nothing at start-up.
var cellSpace = strings.NewReplacer("\t", " ", "\n", " ", "\r", " ")

// table writes aligned columns, like gh's lists. The output is buffered:
// tabwriter writes every cell and its padding separately, thousands of
// system calls for a long list.
type table struct {
	buf *bufio.Writer
	tw  *tabwriter.Writer
}

func newTable(w io.Writer, header ...string) *table {
	buf := bufio.NewWriter(w)
	t := &table{buf: buf, tw: tabwriter.NewWriter(buf, 0, 0, 2, ' ', 0)}
	if len(header) > 0 {
		t.row(header...)
	}
	return t
}

func (t *table) row(cols ...string) {
	for i, c := range cols {
		cols[i] = cellSpace.Replace(c)
	}
	fmt.Fprintln(t.tw, strings.Join(cols, "\t"))
}

func (t *table) flush() error {
	if err := t.tw.Flush(); err != nil {
		return err
	}
	return t.buf.Flush()
}

// relTime describes t relative to now, as "3 minutes ago".
func relTime(now, t time.Time) string {
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

// truncate shortens s to n runes, marking the cut with "…".
func truncate(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}

// formatDuration prints a run's duration compactly.
func formatDuration(d time.Duration) string {
	switch {
	case d <= 0:
		return "-"
	case d < time.Minute:
		return d.Round(100 * time.Millisecond).String()
	}
	return d.Round(time.Second).String()
}
