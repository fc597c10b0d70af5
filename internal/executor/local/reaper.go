package local

import (
	"sync"
	"time"
)

// Reaper kills marked processes as KillMarked does, for any number of
// marks at once: every mark asked for while a scan of the process table
// runs is looked for in the next scan, together with the marks still
// being killed. Each scan reads the environment of every process, so a
// beat whose hundreds of runs end together scanned once a run, each scan
// longer for the processes of the runs still going; sharing the scans
// makes their number follow the time the runs take to end instead. The
// zero value is ready to use.
type Reaper struct {
	mu      sync.Mutex
	waiting []reapRequest // asked for since the last scan began
	running bool          // a goroutine runs loop

	// beforeScan, when set (tests), runs before each scan, outside mu.
	beforeScan func()
	scans      int // scans done, for tests
}

// reapRequest is one call of Kill waiting for its answer.
type reapRequest struct {
	kv   string
	done chan reapResult
}

type reapResult struct {
	n   int
	err error
}

// reapJob is one mark being killed: the calls waiting for it, the
// processes found so far and the scans that found some.
type reapJob struct {
	waiters []chan reapResult
	seen    map[int]bool
	rounds  int
}

// Kill kills every process whose environment holds the KEY=VALUE pair kv,
// as KillMarked documents, and returns how many it found.
func (r *Reaper) Kill(kv string) (int, error) {
	if err := checkMark(kv); err != nil {
		return 0, err
	}
	done := make(chan reapResult, 1)
	r.mu.Lock()
	r.waiting = append(r.waiting, reapRequest{kv: kv, done: done})
	if !r.running {
		r.running = true
		go r.loop()
	}
	r.mu.Unlock()
	res := <-done
	return res.n, res.err
}

// loop scans until no mark is left to kill: each scan looks for the
// marks being killed and those asked for since the last one.
func (r *Reaper) loop() {
	jobs := map[string]*reapJob{}
	for {
		r.mu.Lock()
		for _, q := range r.waiting {
			j := jobs[q.kv]
			if j == nil {
				j = &reapJob{seen: map[int]bool{}}
				jobs[q.kv] = j
			}
			j.waiters = append(j.waiters, q.done)
		}
		r.waiting = nil
		if len(jobs) == 0 {
			r.running = false
			r.mu.Unlock()
			return
		}
		r.scans++
		hook := r.beforeScan
		r.mu.Unlock()
		if hook != nil {
			hook()
		}
		r.round(jobs)
	}
}

// round scans once for the marks of jobs, kills what it finds, answers
// the jobs that are done and removes them, and waits a little when some
// were killed: a killed process lingers until its parent reaps it, its
// environment reading empty as soon as it is dead.
func (r *Reaper) round(jobs map[string]*reapJob) {
	want := make(map[string]bool, len(jobs))
	for kv := range jobs {
		want[kv] = true
	}
	found, err := markedAny(want)
	wait := 0
	for kv, j := range jobs {
		ps := found[kv]
		switch {
		case err != nil:
			j.answer(err)
		case len(ps) == 0:
			j.answer(nil)
		case j.rounds >= killRetries:
			j.answer(ErrSurvivors)
		default:
			for _, p := range ps {
				j.seen[p.pid] = true
				kill(p)
			}
			j.rounds++
			if wait == 0 || j.rounds < wait {
				wait = j.rounds
			}
			continue
		}
		delete(jobs, kv)
	}
	if wait > 0 {
		time.Sleep(time.Duration(wait) * time.Millisecond)
	}
}

// answer tells every call waiting for j how many processes it found.
func (j *reapJob) answer(err error) {
	for _, w := range j.waiters {
		w <- reapResult{n: len(j.seen), err: err}
	}
}
