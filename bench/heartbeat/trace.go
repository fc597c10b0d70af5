package main

import (
	"bufio"
	"fmt"
	"net/http"
	"os"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"
)

// timeline collects what -trace prints: the model's requests (arrival and
// answer) and, from strace's log, every program the beat started, each
// as seconds since the beat started.
type timeline struct {
	mu     sync.Mutex
	start  time.Time
	events []traceEvent
}

type traceEvent struct {
	at   time.Time
	what string
}

// add records what happened now; a nil timeline records nothing.
func (t *timeline) add(what string) {
	if t == nil {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	t.events = append(t.events, traceEvent{time.Now(), what})
}

// readStrace adds the execve lines of strace -f -ttt -e trace=execve's
// log: the process id, the program and its first arguments.
func (t *timeline) readStrace(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		pid, at, call, ok := straceLine(sc.Text())
		if !ok || !strings.HasPrefix(call, "execve(") || strings.Contains(call, "= -1") {
			continue
		}
		t.events = append(t.events, traceEvent{at, fmt.Sprintf("[%s] %s", pid, execArgs(call))})
	}
	return sc.Err()
}

// straceLine splits "PID SECONDS.MICROS call" into its parts. strace
// pads the pid to five columns: a shorter one is followed by more than
// one space.
func straceLine(line string) (pid string, at time.Time, call string, ok bool) {
	first, rest, _ := strings.Cut(strings.TrimLeft(line, " "), " ")
	pid = first
	if _, err := strconv.Atoi(first); err != nil { // strace without -f's pid
		pid, rest = "0", line
	}
	stamp, call, found := strings.Cut(strings.TrimLeft(rest, " "), " ")
	if !found {
		return "", time.Time{}, "", false
	}
	secs, err := strconv.ParseFloat(stamp, 64)
	if err != nil {
		return "", time.Time{}, "", false
	}
	return pid, time.Unix(0, int64(secs*1e9)), strings.TrimSpace(call), true
}

// execArgs shortens an execve call to its argument list, at most 110
// characters.
func execArgs(call string) string {
	if i := strings.Index(call, "["); i >= 0 {
		call = call[i:]
	}
	if i := strings.Index(call, "], "); i >= 0 {
		call = call[:i+1]
	}
	call = dropConfigArgs(call)
	if len(call) > 110 {
		call = call[:110] + "…"
	}
	return call
}

// print writes the events in order, as seconds since the beat started,
// then how many programs started (the beat's own included) and how many
// of them were git (git-upload-pack, and the shell that starts it, are
// counted as git's).
func (t *timeline) print() {
	sort.SliceStable(t.events, func(i, j int) bool { return t.events[i].at.Before(t.events[j].at) })
	programs, git := 0, 0
	for _, e := range t.events {
		fmt.Printf("%7.3f  %s\n", e.at.Sub(t.start).Seconds(), e.what)
		if _, args, ok := strings.Cut(e.what, "] ["); ok && strings.HasPrefix(e.what, "[") {
			programs++
			if f := strings.SplitN(args, ", ", 3); strings.Contains(f[0], "git") || (f[0] == `"/bin/sh"` && len(f) > 1 && strings.Contains(f[1], "git")) {
				git++
			}
		}
	}
	fmt.Printf("%d programs started, %d of them git's\n", programs, git)
}

// wrap records each request's arrival and the end of its answer.
func (t *timeline) wrap(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		t.add("model request")
		h.ServeHTTP(w, r)
		t.add("model answered")
	})
}

// dropConfigArgs leaves out git's `-c name=value` pairs, the same on
// every call, so the subcommand shows.
func dropConfigArgs(call string) string {
	f := strings.Split(call, ", ")
	out := f[:0:0]
	for i := 0; i < len(f); i++ {
		if f[i] == `"-c"` && i+1 < len(f) {
			i++
			continue
		}
		out = append(out, f[i])
	}
	return strings.Join(out, ", ")
}

// readStamps adds the "TRACE unixnano what" lines the beat wrote.
func (t *timeline) readStamps(out string) {
	for _, line := range strings.Split(out, "\n") {
		f := strings.SplitN(line, " ", 3)
		if len(f) < 3 || f[0] != "TRACE" {
			continue
		}
		ns, err := strconv.ParseInt(f[1], 10, 64)
		if err == nil {
			t.events = append(t.events, traceEvent{time.Unix(0, ns), "· " + f[2]})
		}
	}
}
