package beater

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strconv"
	"sync"

	"github.com/bonsai-run/bonsai/internal/heartbeat"
)

// EventsEnv names the variable that gives a beat started by the loop the
// descriptor (on Windows, the handle) of the pipe to write its [Event]s
// on.
const EventsEnv = "BONSAI_EVENTS_FD"

// The kinds of [Event].
const (
	RunStarted = "run.started"
	RunEnded   = "run.ended"
)

// Event is one line of the events pipe: a run of the beat started or
// ended, with where it stood (Progress.End is set on RunEnded).
type Event struct {
	Kind     string             `json:"kind"`
	Progress heartbeat.Progress `json:"progress"`
}

// OpenEvents is the beat's side of the pipe: when getenv names an events
// descriptor, it returns a heartbeat.Options.Progress that writes an
// Event when a run starts and when it ends, and the function that closes
// the pipe; else nil and a close that does nothing. The descriptor is
// kept from the beat's own children, and the variable is removed from
// this process's environment so that they do not see it.
func OpenEvents(getenv func(string) string) (func(heartbeat.Progress), func() error, error) {
	v := getenv(EventsEnv)
	if v == "" {
		return nil, func() error { return nil }, nil
	}
	os.Unsetenv(EventsEnv)
	n, err := strconv.ParseUint(v, 10, 64)
	if err != nil {
		return nil, nil, fmt.Errorf("%s=%q is not a descriptor number; unset it", EventsEnv, v)
	}
	f, err := openInherited(uintptr(n))
	if err != nil {
		return nil, nil, fmt.Errorf("%s=%s: %w; unset it", EventsEnv, v, err)
	}
	var mu sync.Mutex
	enc := json.NewEncoder(f)
	progress := func(p heartbeat.Progress) {
		e := Event{Kind: RunStarted, Progress: p}
		switch {
		case p.End != nil:
			e.Kind = RunEnded
		case p.Turns != 0:
			return // a model response: the loop shows starts and ends
		}
		mu.Lock()
		defer mu.Unlock()
		enc.Encode(e) // a parent gone is no reason to fail the beat
	}
	return progress, f.Close, nil
}

// readEvents decodes the events of r until it ends, handing each to on;
// a line that is not an Event is reported to bad.
func readEvents(r io.Reader, on func(Event), bad func(line string, err error)) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		var e Event
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			bad(sc.Text(), err)
			continue
		}
		on(e)
	}
	io.Copy(io.Discard, r)
}
