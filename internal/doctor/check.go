package doctor

import (
	"fmt"
	"io"
	"strings"

	"github.com/bonsai-run/bonsai/internal/termsafe"
)

// Status is the outcome of one check.
type Status string

// The statuses, from good to bad; skip is a check that could not run
// because an earlier one failed or it does not apply here.
const (
	OK   Status = "ok"
	Warn Status = "warn"
	Fail Status = "fail"
	Skip Status = "skip"
)

// Check is one check's outcome.
type Check struct {
	// Name says what was checked ("database", "model anthropic/…").
	Name   string `json:"name"`
	Status Status `json:"status"`
	// Detail is what the check found, one line.
	Detail string `json:"detail"`
	// Fix says what to do; set when Status is warn or fail.
	Fix string `json:"fix,omitempty"`
}

// Failed reports whether any check failed: `bonsai doctor` then exits 1.
func Failed(checks []Check) bool {
	return Count(checks, Fail) > 0
}

// Count returns how many checks have status s.
func Count(checks []Check, s Status) int {
	n := 0
	for _, c := range checks {
		if c.Status == s {
			n++
		}
	}
	return n
}

// marks are the status columns: symbols for a terminal, words for a pipe
// or a file, where a failure must be found with grep.
var marks = map[bool]map[Status]string{
	true:  {OK: "✓", Warn: "!", Fail: "✗", Skip: "-"},
	false: {OK: "ok", Warn: "warn", Fail: "FAIL", Skip: "skip"},
}

// maxNameWidth is the widest the name column gets.
const maxNameWidth = len("data directory")

// Write prints one line per check — its mark, name and detail — with the
// fix indented under each that is not ok, then a summary line; control
// characters in them show as escapes (termsafe.Line). symbols
// chooses ✓ ! ✗ - (a terminal) over ok warn FAIL skip.
func Write(w io.Writer, checks []Check, symbols bool) error {
	width := 0
	for _, c := range checks {
		width = max(width, len(c.Name))
	}
	// A long name (a model id) runs into the detail rather than pushing
	// every line to the right.
	width = min(width, maxNameWidth)
	var b strings.Builder
	for _, c := range checks {
		// A detail can quote a server's answer or a beat's error: its
		// control characters show as escapes.
		fmt.Fprintf(&b, "%-4s %-*s  %s\n", marks[symbols][c.Status], width, termsafe.Line(c.Name), termsafe.Line(c.Detail))
		if c.Fix != "" && (c.Status == Warn || c.Status == Fail) {
			fmt.Fprintf(&b, "     %-*s  fix: %s\n", width, "", termsafe.Line(c.Fix))
		}
	}
	fails, warns := Count(checks, Fail), Count(checks, Warn)
	switch {
	case fails > 0:
		fmt.Fprintf(&b, "\n%s failed, %s.\n", plural(fails, "check"), plural(warns, "warning"))
	case warns > 0:
		fmt.Fprintf(&b, "\nNo check failed; %s.\n", plural(warns, "warning"))
	default:
		b.WriteString("\nEvery check passed.\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}
