package text

import (
	"fmt"
	"io"
	"sort"
	"time"

	"github.com/bonsai-run/bonsai/internal/heartbeat"
	"github.com/bonsai-run/bonsai/internal/termsafe"
	"github.com/bonsai-run/bonsai/internal/view"
)

// HeartbeatStatus is what `bonsai status` and the web UI show of the
// heartbeat: the last beat and the providers paused by a rate limit, quota
// or rejected key. It is the "heartbeat" field of `status --json`, made
// from heartbeat.json, which every beat rewrites; see docs/heartbeat.md.
type HeartbeatStatus struct {
	LastBeat *heartbeat.Report `json:"lastBeat"`
	Paused   []PausedProvider  `json:"paused"`
	// RepoBackoff lists projects whose repository failed to clone or
	// fetch, and that wait until Until.
	RepoBackoff []RepoBackoff `json:"repoBackoff"`
	// PushFailures lists tickets whose branch the last push left off the
	// remote; each stays until a push of the ticket works.
	PushFailures []PushFailure `json:"pushFailures"`
}

// PushFailure is a ticket whose work is in the local clone only.
type PushFailure struct {
	Ticket   string    `json:"ticket"`
	Branch   string    `json:"branch"`
	Failures int       `json:"failures"`
	At       time.Time `json:"at"`
	Error    string    `json:"error"`
}

// RepoBackoff is a project the heartbeat leaves alone after its
// repository failed.
type RepoBackoff struct {
	Project  string    `json:"project"`
	Failures int       `json:"failures"`
	Until    time.Time `json:"until"`
	Error    string    `json:"error"`
}

// PausedProvider is a provider the heartbeat leaves alone until Until.
type PausedProvider struct {
	Provider string    `json:"provider"`
	Until    time.Time `json:"until"`
}

// NewHeartbeatStatus returns the status of the heartbeat whose saved state
// is st (heartbeat.ReadState); pauses and backoffs already over at now are
// left out, and every list is sorted and never null.
func NewHeartbeatStatus(st *heartbeat.State, now time.Time) HeartbeatStatus {
	v := HeartbeatStatus{LastBeat: st.LastBeat, Paused: []PausedProvider{}, RepoBackoff: []RepoBackoff{}}
	for p, until := range st.Paused {
		if now.Before(until) {
			v.Paused = append(v.Paused, PausedProvider{Provider: p, Until: until})
		}
	}
	sort.Slice(v.Paused, func(i, j int) bool { return v.Paused[i].Provider < v.Paused[j].Provider })
	for slug, b := range st.Repos {
		if now.Before(b.Until) {
			v.RepoBackoff = append(v.RepoBackoff, RepoBackoff{Project: slug, Failures: b.Failures, Until: b.Until, Error: b.Error})
		}
	}
	sort.Slice(v.RepoBackoff, func(i, j int) bool { return v.RepoBackoff[i].Project < v.RepoBackoff[j].Project })
	v.PushFailures = []PushFailure{}
	for ref, f := range st.Pushes {
		v.PushFailures = append(v.PushFailures, PushFailure{Ticket: ref, Branch: f.Branch, Failures: f.Failures, At: f.At, Error: f.Error})
	}
	sort.Slice(v.PushFailures, func(i, j int) bool { return v.PushFailures[i].Ticket < v.PushFailures[j].Ticket })
	return v
}

// WriteHeartbeatStatus writes the HEARTBEAT section of `bonsai status`.
func WriteHeartbeatStatus(w io.Writer, v HeartbeatStatus, now time.Time) {
	fmt.Fprintln(w, "HEARTBEAT")
	b := v.LastBeat
	switch {
	case b == nil:
		fmt.Fprintln(w, "  no beat yet: run 'bonsai heartbeat', 'bonsai up' or 'bonsai service install'")
	default:
		ran, skipped := 0, 0
		for _, r := range b.Runs {
			if r.Skipped != "" {
				skipped++
			} else {
				ran++
			}
		}
		fmt.Fprintf(w, "  last beat %s, took %s: %d run(s)", RelTime(now, b.StartedAt), b.Duration().Round(time.Millisecond), ran)
		if skipped > 0 {
			fmt.Fprintf(w, ", %d skipped", skipped)
		}
		if b.Interrupted > 0 {
			fmt.Fprintf(w, ", %d interrupted run(s) reconciled", b.Interrupted)
		}
		fmt.Fprintln(w)
		for _, r := range b.Runs {
			if r.Skipped != "" {
				fmt.Fprintf(w, "  %s skipped: %s\n", r.Ticket, termsafe.Line(r.Skipped))
			}
		}
	}
	for _, p := range v.Paused {
		fmt.Fprintf(w, "  provider %s paused until %s\n", termsafe.Line(p.Provider), p.Until.Local().Format("15:04 Jan 2"))
	}
	for _, b := range v.RepoBackoff {
		fmt.Fprintf(w, "  project %s waits until %s: its repository failed %d time(s) in a row: %s\n",
			b.Project, b.Until.Local().Format("15:04 Jan 2"), b.Failures, OneLine(b.Error, 300))
	}
	for _, f := range v.PushFailures {
		fmt.Fprintf(w, "  %s NOT PUSHED: branch %s failed to push %d time(s) in a row, last %s: %s\n",
			f.Ticket, termsafe.Line(f.Branch), f.Failures, RelTime(now, f.At), OneLine(f.Error, 200))
	}
}

// Facts is what v says stops agents, for view.Blockers: the paused
// providers, the repositories backing off, the last beat's skips and the
// pull requests it could not follow.
func (v HeartbeatStatus) Facts() view.AgentFacts {
	var f view.AgentFacts
	for _, p := range v.Paused {
		f.Paused = append(f.Paused, view.PausedProvider{Provider: p.Provider, Until: p.Until})
	}
	for _, r := range v.RepoBackoff {
		f.Repos = append(f.Repos, view.RepoWait{Project: r.Project, Until: r.Until, Error: r.Error})
	}
	if v.LastBeat != nil {
		for _, r := range v.LastBeat.Runs {
			if r.Skipped != "" {
				f.Skips = append(f.Skips, view.Skip{Ticket: r.Ticket, Reason: r.Skipped})
			}
		}
		if rs := v.LastBeat.Reviews; rs != nil {
			for _, u := range rs.Failures {
				f.Unfollowed = append(f.Unfollowed, view.Skip{Ticket: u.Ticket, Reason: u.Error})
			}
		}
	}
	return f
}
