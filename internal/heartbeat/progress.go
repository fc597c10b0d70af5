package heartbeat

import (
	"sync"
	"time"

	"github.com/bonsai-run/bonsai/internal/board"
)

// Progress is where one run stands, for Options.Progress: sent when the
// run starts, after each model response and when it ends.
type Progress struct {
	Ticket  string // "demo#3"
	Task    board.TaskKind
	Model   string
	RunID   string
	Started time.Time
	// Turns counts the model responses so far; Usage is what they used.
	Turns int
	Usage board.Usage
	// End is the run's report once it ended; nil while it runs.
	End *RunReport
}

// meter counts a run's model responses and usage, and sends where the
// run stands to Options.Progress (send; nil sends nothing) at each new
// response. Safe for concurrent use.
type meter struct {
	send func(Progress)
	base Progress // the run's ticket, task, model, ID and start

	mu    sync.Mutex
	usage board.Usage
	turns int
}

// setUsage takes the run's usage so far (Job.OnUsage). The runner reports
// a response's usage when its message ends and again when its turn ends;
// only a change is a new response.
func (m *meter) setUsage(u board.Usage) {
	m.mu.Lock()
	changed := u != m.usage
	m.usage = u
	if changed {
		m.turns++
	}
	m.mu.Unlock()
	if changed {
		m.report(nil)
	}
}

// used returns the run's usage so far.
func (m *meter) used() board.Usage {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.usage
}

// standing is where the run stands now; end is its report once it ended.
func (m *meter) standing(end *RunReport) Progress {
	m.mu.Lock()
	defer m.mu.Unlock()
	p := m.base
	p.Turns, p.Usage, p.End = m.turns, m.usage, end
	return p
}

// report sends where the run stands, if anyone listens.
func (m *meter) report(end *RunReport) {
	if m.send != nil {
		m.send(m.standing(end))
	}
}
