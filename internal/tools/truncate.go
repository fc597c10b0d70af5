package tools

import (
	"strings"
	"unicode/utf8"
)

// Output limits of docs/design.md §6: whichever comes first.
const (
	maxLines = 2000
	maxBytes = 50 * 1024
	// maxLineChars is where grep cuts long lines.
	maxLineChars = 500
)

// limits bounds what one result shows; tests use small ones.
type limits struct{ lines, bytes int }

// outputLimits are the limits of docs/design.md §6.
var outputLimits = limits{maxLines, maxBytes}

// splitLines splits text into lines without their "\n"; a final newline
// does not start another line.
func splitLines(s string) []string {
	if s == "" {
		return nil
	}
	s = strings.TrimSuffix(s, "\n")
	return strings.Split(s, "\n")
}

// tail keeps the end of lines within the limits (counting a newline after
// each line). It returns the index of the first kept line; partial is set
// when even the last line is over the byte limit, in which case last holds
// its final bytes (cut at a rune boundary).
type tail struct {
	first   int
	partial bool
	last    string
}

func tailOf(lines []string, lim limits) tail {
	n, size := 0, 0
	for i := len(lines) - 1; i >= 0 && n < lim.lines; i-- {
		if size+len(lines[i])+1 > lim.bytes {
			break
		}
		size += len(lines[i]) + 1
		n++
	}
	if n == 0 && len(lines) > 0 {
		l := lines[len(lines)-1]
		cut := max(len(l)-lim.bytes, 0)
		for cut < len(l) && !utf8.RuneStart(l[cut]) {
			cut++
		}
		return tail{first: len(lines) - 1, partial: true, last: l[cut:]}
	}
	return tail{first: len(lines) - n}
}

// cutLine shortens a line to maxLineChars characters, reporting whether it
// was cut.
func cutLine(s string) (string, bool) {
	if len(s) <= maxLineChars {
		return s, false
	}
	n := 0
	for i := range s {
		if n == maxLineChars {
			return s[:i] + "…", true
		}
		n++
	}
	return s, false
}

// shellQuote quotes s for a POSIX shell.
func shellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
