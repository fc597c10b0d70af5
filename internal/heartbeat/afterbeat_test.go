package heartbeat_test

import (
	"testing"
	"time"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/heartbeat"
)

// TestNextBeat: a worker beats again a second after a beat that completed
// a run, five seconds after one whose tickets waited for other workers'
// leases, and after the interval otherwise, never later than the
// interval.
func TestNextBeat(t *testing.T) {
	t.Parallel()
	const interval = time.Minute
	run := func(rs ...heartbeat.RunReport) *heartbeat.Report { return &heartbeat.Report{Runs: rs} }
	completed := heartbeat.RunReport{Status: board.RunCompleted}
	leased := heartbeat.RunReport{Skipped: "no lease: project demo already has an agent", Leased: true}
	for _, tc := range []struct {
		name     string
		rep      *heartbeat.Report
		interval time.Duration
		want     time.Duration
	}{
		{"no report (the beat failed)", nil, interval, interval},
		{"another beat held the lock", &heartbeat.Report{Skipped: true, Runs: []heartbeat.RunReport{completed}}, interval, interval},
		{"nothing to do", run(), interval, interval},
		{"a run completed", run(heartbeat.RunReport{Status: board.RunError}, completed), interval, time.Second},
		{"tickets waited for leases", run(leased, heartbeat.RunReport{Skipped: "daily budget spent"}), interval, 5 * time.Second},
		{"completed beats leased", run(leased, completed), interval, time.Second},
		{"only errors and blocks", run(heartbeat.RunReport{Status: board.RunError}, heartbeat.RunReport{Status: board.RunBlocked}), interval, interval},
		{"an interval shorter than the waits", run(leased), 2 * time.Second, 2 * time.Second},
	} {
		if got := heartbeat.NextBeat(tc.rep, tc.interval); got != tc.want {
			t.Errorf("%s: NextBeat = %v, want %v", tc.name, got, tc.want)
		}
	}
}
