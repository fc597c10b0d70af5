package executor

// LimitReporter is an executor that can say, while a command still runs,
// which of its sandbox's limits its commands met so far: an engine CLI
// runs as one long command whose own commands the runtime does not start,
// and its run ends at the first limit met, as Bonsai's own loop's does
// at the first command whose Exit.Limit is set.
type LimitReporter interface {
	// LimitsMet returns the notes of the limits met since the executor
	// opened, joined by "; " as Exit.Limit; "" when none, or when it
	// cannot tell (no cgroup).
	LimitsMet() string
}
