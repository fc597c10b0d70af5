package text

import (
	"io"
	"time"

	"github.com/bonsai-run/bonsai/internal/heartbeat"
)

// Progress shows a beat's runs on w as they go: on a terminal that takes
// ANSI codes (live), a line per running agent redrawn in place every
// second; elsewhere (a log, a pipe, 'bonsai up', TERM=dumb) a line when
// each run starts and ends. stop ends the redrawing.
func Progress(w io.Writer, live bool) (progress func(heartbeat.Progress), stop func()) {
	if !live {
		return ProgressLines(w), func() {}
	}
	l := NewLive(w, time.Now)
	done := make(chan struct{})
	ended := make(chan struct{})
	go func() {
		defer close(ended)
		t := time.NewTicker(time.Second)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				l.Redraw()
			}
		}
	}()
	return l.Update, func() { close(done); <-ended }
}
