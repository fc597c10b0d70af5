package agentrunner

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"sync"

	"github.com/bonsai-run/bonsai/internal/llm"
	"github.com/bonsai-run/bonsai/internal/tool"
	"github.com/bonsai-run/bonsai/internal/tools"
)

// A heartbeat run ends at the first command that meets a sandbox limit
// (docs/heartbeat.md, "A command that meets a sandbox limit"): nobody
// watches the run, and a model that retries a fork bomb or a memory hog
// would otherwise pay for it, and load the machine, until the run's
// deadline. The run is recorded as an error naming the limit; the next
// beat resumes from the transcript, whose last message is the command's
// result, and the same error twice in a row blocks the ticket (guard.go).

// limitEndText is appended to the result of a command that met a limit:
// the model reads it when the next run resumes the transcript.
const limitEndText = "\n\nbonsai: this run ends here because the command met a sandbox limit; the next run goes on from this result. " +
	"Do not run the command again as it is: do the work in smaller steps, or ask a person to raise the limit."

// maxLimitCommand bounds the command quoted in the run's error.
const maxLimitCommand = 200

// limitHit records the first command of a run that met a sandbox limit.
type limitHit struct {
	mu      sync.Mutex
	note    string // executor.Exit.Limit of that command
	command string
}

// record keeps the first hit.
func (h *limitHit) record(note, command string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.note == "" {
		h.note, h.command = note, command
	}
}

// Error is the run's error for the recorded hit, "" when there was none.
// It names the limits and the command, and says how to raise them; it is
// the same for the same limit and command on every run (the amounts a
// note measured are left out), so that the no-progress guard's "same
// error twice" rule blocks a ticket that meets it again and again.
func (h *limitHit) Error() string {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.note == "" {
		return ""
	}
	var what, keys []string
	for _, n := range strings.Split(h.note, "; ") {
		m := limitKey.FindStringSubmatchIndex(n)
		if m == nil {
			continue
		}
		what = append(what, measured.ReplaceAllString(n[:m[1]], "grew past"))
		keys = append(keys, n[m[2]:m[3]])
	}
	if len(what) == 0 { // a note of another form: quoted whole
		what = []string{h.note}
	}
	raise := "raise the limit in config.json"
	if len(keys) > 0 {
		raise = "raise it with `bonsai config set " + keys[0] + " N`"
		for _, k := range keys[1:] {
			raise += " or `bonsai config set " + k + " N`"
		}
	}
	return fmt.Sprintf("a command met the sandbox's limits, so the run ended: %s; the command: %s. "+
		"If the work needs more, %s; else tell the agent to do it in smaller steps.",
		strings.Join(what, "; "), oneLine(h.command, maxLimitCommand), raise)
}

// LimitError is the run's error for a command that met the sandbox's
// limits (note, as executor.Exit.Limit): an engine's run that ends at a
// limit is recorded as Bonsai's own loop's is.
func LimitError(note, command string) string {
	h := &limitHit{}
	h.record(note, command)
	return h.Error()
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

// stopOnLimit returns ts with the bash tool ending the run (Terminate)
// after a command that met a sandbox limit, recorded in hit.
func stopOnLimit(ts []tool.Tool, hit *limitHit) []tool.Tool {
	out := make([]tool.Tool, len(ts))
	for i, t := range ts {
		if t.Name() == "bash" {
			t = &limitStop{Tool: t, hit: hit}
		}
		out[i] = t
	}
	return out
}

// limitStop is a bash tool that ends the run at a sandbox limit.
type limitStop struct {
	tool.Tool
	hit *limitHit
}

var (
	_ tool.ReadOnly  = (*limitStop)(nil)
	_ tool.Validator = (*limitStop)(nil)
)

// Run implements tool.Tool.
func (l *limitStop) Run(ctx context.Context, args json.RawMessage, update func(tool.Result)) (tool.Result, error) {
	res, err := l.Tool.Run(ctx, args, update)
	note := limitOf(res.Details)
	if err != nil || note == "" {
		return res, err
	}
	var a struct {
		Command string `json:"command"`
	}
	_ = json.Unmarshal(args, &a)
	l.hit.record(note, a.Command)
	res.Content = append(res.Content, llm.Text(limitEndText))
	res.IsError, res.Terminate = true, true
	return res, nil
}

// limitOf returns the limits a bash result's details name.
func limitOf(details any) string {
	switch d := details.(type) {
	case tools.BashDetails:
		return d.Limit
	case *tools.BashDetails:
		if d != nil {
			return d.Limit
		}
	}
	return ""
}

// ReadOnly implements tool.ReadOnly as the wrapped tool does.
func (l *limitStop) ReadOnly() bool {
	ro, ok := l.Tool.(tool.ReadOnly)
	return ok && ro.ReadOnly()
}

// Validate implements tool.Validator as the wrapped tool does, or by its
// schema when it has no validator of its own.
func (l *limitStop) Validate(args json.RawMessage) error {
	if v, ok := l.Tool.(tool.Validator); ok {
		return v.Validate(args)
	}
	c, err := tool.Check(l.Tool)
	if err != nil {
		return err
	}
	return c.Validate(args)
}
