package sandbox

import (
	"fmt"
	"io"
	"strings"

	"github.com/bonsai-run/bonsai/internal/executor"
)

// tmpNote is the note of a command that filled the private /tmp of
// size bytes.
func tmpNote(size int64) string {
	return fmt.Sprintf("the command filled the sandbox's /tmp of %s (limits.tmpMiB in config.json): delete what it left there, or write large files in the workspace", mib(size))
}

// pidsNote is the note of a command that met the process limit.
func pidsNote(l Limits) string {
	return fmt.Sprintf("the sandbox reached its limit of %d processes and threads (limits.processes in config.json): a fork failed; run fewer at once", l.Processes)
}

// oomNote is the note of a command that met the memory limit.
func oomNote(l Limits) string {
	return fmt.Sprintf("the sandbox ran out of its %s of memory (limits.memoryMiB in config.json): a process was killed; use less (fewer parallel jobs, smaller inputs)", mib(l.Memory))
}

// LimitsMet implements executor.LimitReporter: the process and memory
// limits the sandbox's cgroup met since it was made (with this executor);
// "" without a cgroup.
func (s *Executor) LimitsMet() string {
	var notes []string
	n := s.cg.read()
	if n.pids > 0 {
		notes = append(notes, pidsNote(s.opts.Limits))
	}
	if n.oom > 0 {
		notes = append(notes, oomNote(s.opts.Limits))
	}
	return strings.Join(notes, "; ")
}

// sigXFSZ is the signal of a write past RLIMIT_FSIZE.
const sigXFSZ = 25

// limitNotes appends to a command's output a line for each limit it
// met, and fails a command that ended with the workspace grown past its
// bound. before are the cgroup's counters when it started; stopped says
// the disk guard stopped it.
func (s *Executor) limitNotes(x *executor.Exit, opts executor.RunOptions, before counters, stopped bool) {
	l := s.opts.Limits
	var notes []string
	if x.Limit != "" { // the command server's: a full /tmp
		notes = append(notes, x.Limit)
	}
	after := s.cg.read()
	if after.pids > before.pids {
		notes = append(notes, pidsNote(l))
	}
	if after.oom > before.oom {
		notes = append(notes, oomNote(l))
		if x.Code == 0 {
			x.Code = 1 // one of its processes was killed
		}
	}
	if x.Code == 128+sigXFSZ && l.FileSize > 0 {
		notes = append(notes, fmt.Sprintf("the command was stopped for writing a file larger than %s (limits.fileSizeMiB in config.json)", mib(l.FileSize)))
	}
	if d := s.disk; d != nil {
		if stopped {
			x.Canceled = false
		}
		if stopped || x.Duration >= diskTick || d.suspect() {
			if grown := d.grown(); stopped || grown > d.limit {
				notes = append(notes, fmt.Sprintf("the workspace and its .git grew by %s in this run, past the limit of %s (limits.diskGrowthMiB in config.json); the command was stopped or failed: delete what was written before going on", mib(max(grown, d.limit)), mib(d.limit)))
				if x.Code == 0 {
					x.Code = 1
				}
			}
		}
	}
	if len(notes) == 0 {
		return
	}
	x.Limit = strings.Join(notes, "; ")
	w := opts.Stderr
	if w == nil {
		w = opts.Output
	}
	if w != nil {
		_, _ = io.WriteString(w, "\nbonsai: "+strings.Join(notes, "\nbonsai: ")+"\n")
	}
}
