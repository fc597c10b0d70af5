package agentjob

import (
	"fmt"
	"regexp"
	"strings"
)

// maxLimitCommand bounds the command quoted in the run's error.
const maxLimitCommand = 200

// LimitError is the run's error for a command that met the sandbox's
// limits (note, as executor.Exit.Limit; "" when none did, and then so is
// the error): a run of any runner that ends at a limit is recorded alike.
// It names the limits and the command, and says how to raise them; it is
// the same for the same limit and command on every run (the amounts a
// note measured are left out), so that the no-progress guard's "same
// error twice" rule blocks a ticket that meets it again and again.
func LimitError(note, command string) string {
	if note == "" {
		return ""
	}
	var what, keys []string
	for _, n := range strings.Split(note, "; ") {
		m := limitKey.FindStringSubmatchIndex(n)
		if m == nil {
			continue
		}
		what = append(what, measured.ReplaceAllString(n[:m[1]], "grew past"))
		keys = append(keys, n[m[2]:m[3]])
	}
	if len(what) == 0 { // a note of another form: quoted whole
		what = []string{note}
	}
	raise := "raise the limit in config.json or the project's settings"
	if len(keys) > 0 {
		raise = "raise it with `bonsai config set " + keys[0] + " N`"
		for _, k := range keys[1:] {
			raise += " or `bonsai config set " + k + " N`"
		}
		raise += " (every project), or for this project alone with `bonsai project edit PROJECT"
		for _, k := range keys {
			raise += " " + projectFlag[k] + " N"
		}
		raise += "`"
	}
	return fmt.Sprintf("a command met the sandbox's limits, so the run ended: %s; the command: %s. "+
		"If the work needs more, %s; else tell the agent to do it in smaller steps.",
		strings.Join(what, "; "), oneLine(command, maxLimitCommand), raise)
}

// projectFlag is the `project add|edit` flag of each config.json limit:
// a project's own limit wins over config.json's.
var projectFlag = map[string]string{
	"limits.memoryMiB": "--limit-memory-mib", "limits.processes": "--limit-processes", "limits.tmpMiB": "--limit-tmp-mib",
	"limits.fileSizeMiB": "--limit-file-size-mib", "limits.diskGrowthMiB": "--limit-disk-growth-mib",
}

var (
	// limitKey ends the first clause of each of the sandbox's limit
	// notes (internal/executor/sandbox/notes.go) and names its key.
	limitKey = regexp.MustCompile(`\((limits\.[A-Za-z]+) in config\.json\)`)
	// measured is the amount the disk guard measured, which differs
	// from run to run.
	measured = regexp.MustCompile(`grew by [^,;]*?, past`)
)

// oneLine returns s on one line, cut to n bytes.
func oneLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8Start(s[n]) {
		n--
	}
	return s[:n] + "…"
}

// utf8Start reports whether b starts a UTF-8 sequence.
func utf8Start(b byte) bool { return b&0xC0 != 0x80 }
