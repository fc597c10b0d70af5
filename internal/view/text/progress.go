package text

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/heartbeat"
	"github.com/bonsai-run/bonsai/internal/termsafe"
)

// RunStartLine is the line `bonsai heartbeat` prints, off a terminal,
// when a run starts: "demo#3 started: research with anthropic/… (run r1)".
func RunStartLine(p heartbeat.Progress) string {
	return fmt.Sprintf("%s started: %s with %s (run %s)", termsafe.Line(p.Ticket), p.Task, termsafe.Line(p.Model), p.RunID)
}

// RunEndLine is the line printed when a run ends: its result, duration,
// model responses, tokens and cost. p.End must be set.
func RunEndLine(p heartbeat.Progress) string {
	r := p.End
	result := string(r.Status)
	switch {
	case r.MovedTo != "":
		result += ", moved to " + string(r.MovedTo)
	case r.Error != "":
		result += ": " + OneLine(r.Error, 120)
	}
	if r.Guard != "" {
		result += "; BLOCKED: " + OneLine(r.Guard, 120)
	}
	if r.PushError != "" {
		result += "; NOT PUSHED"
	}
	return fmt.Sprintf("%s ended: %s; %s", termsafe.Line(p.Ticket), result, usageText(Duration(r.Duration), p))
}

// usageText is "1m12s, 5 turns, 12345 tokens, $0.04".
func usageText(elapsed string, p heartbeat.Progress) string {
	return fmt.Sprintf("%s, %d turn%s, %d tokens, %s", elapsed, p.Turns, plural(p.Turns), p.Usage.Tokens(), board.USD(p.Usage.CostUSD))
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// ProgressLines writes a line when a run starts and when it ends, for
// `bonsai heartbeat` off a terminal; it is a heartbeat.Options.Progress.
func ProgressLines(w io.Writer) func(heartbeat.Progress) {
	var mu sync.Mutex
	return func(p heartbeat.Progress) {
		var line string
		switch {
		case p.End != nil:
			line = RunEndLine(p)
		case p.Turns == 0:
			line = RunStartLine(p)
		default:
			return
		}
		mu.Lock()
		fmt.Fprintln(w, line)
		mu.Unlock()
	}
}

// Live draws, on a terminal, one line per running agent (its elapsed
// time, turns, tokens and cost), redrawn in place; a run that ends leaves
// its RunEndLine above them. Update is a heartbeat.Options.Progress;
// call Redraw every second or so to advance the clocks.
type Live struct {
	w   io.Writer
	now func() time.Time

	mu      sync.Mutex
	running map[string]heartbeat.Progress // by run ID
	drawn   int                           // lines drawn last time
}

// NewLive returns a Live that draws to w; now is the clock.
func NewLive(w io.Writer, now func() time.Time) *Live {
	return &Live{w: w, now: now, running: map[string]heartbeat.Progress{}}
}

// Update records where a run stands and redraws.
func (l *Live) Update(p heartbeat.Progress) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.clear()
	if p.End != nil {
		delete(l.running, p.RunID)
		fmt.Fprintln(l.w, RunEndLine(p))
	} else {
		if _, ok := l.running[p.RunID]; !ok {
			fmt.Fprintln(l.w, RunStartLine(p))
		}
		l.running[p.RunID] = p
	}
	l.draw()
}

// Redraw draws the running agents again with their elapsed time now.
func (l *Live) Redraw() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.clear()
	l.draw()
}

// clear erases the lines drawn last: up that many lines, then to the end
// of the screen.
func (l *Live) clear() {
	if l.drawn > 0 {
		fmt.Fprintf(l.w, "\x1b[%dF\x1b[J", l.drawn)
		l.drawn = 0
	}
}

func (l *Live) draw() {
	ps := make([]heartbeat.Progress, 0, len(l.running))
	for _, p := range l.running {
		ps = append(ps, p)
	}
	slices.SortFunc(ps, func(a, b heartbeat.Progress) int { return strings.Compare(a.Ticket, b.Ticket) })
	now := l.now()
	for _, p := range ps {
		fmt.Fprintf(l.w, "  %s %s running: %s\n", termsafe.Line(p.Ticket), p.Task, usageText(now.Sub(p.Started).Round(time.Second).String(), p))
	}
	l.drawn = len(ps)
}
