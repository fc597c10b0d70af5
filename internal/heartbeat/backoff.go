package heartbeat

import (
	"fmt"
	"time"

	"github.com/bonsai-run/bonsai/internal/board"
)

// Repository backoff: after a project's repository fails to clone or fetch,
// its picks are skipped for RepoBackoffMin, doubling with each further
// failure up to RepoBackoffMax, so a bad URL leaves a few run errors rather
// than one a beat.
const (
	RepoBackoffMin = 2 * time.Minute
	RepoBackoffMax = time.Hour
)

// RepoBackoff is a project's repository that failed, as heartbeat.json
// keeps it.
type RepoBackoff struct {
	// Repo is the project's repo when it failed; editing the project's
	// repo ends the backoff.
	Repo     string    `json:"repo"`
	Failures int       `json:"failures"`
	Until    time.Time `json:"until"`
	Error    string    `json:"error"`
}

// repoDelay is the wait after n failures in a row.
func repoDelay(n int) time.Duration {
	d := RepoBackoffMin
	for i := 1; i < n && d < RepoBackoffMax; i++ {
		d *= 2
	}
	return min(d, RepoBackoffMax)
}

// repoFailed records a failure of p's repository.
func (l *ledger) repoFailed(p board.Project, err error) RepoBackoff {
	l.mu.Lock()
	defer l.mu.Unlock()
	b := l.st.Repos[p.Slug]
	if b.Repo != p.Repo {
		b = RepoBackoff{Repo: p.Repo}
	}
	b.Failures++
	b.Until = l.now().Add(repoDelay(b.Failures))
	b.Error = errText(err)
	l.st.Repos[p.Slug] = b
	return b
}

// repoWorked forgets the failures of p's repository.
func (l *ledger) repoWorked(p board.Project) {
	l.mu.Lock()
	defer l.mu.Unlock()
	delete(l.st.Repos, p.Slug)
}

// repoBlocker says why p's picks wait for its repository at now, or "".
func repoBlocker(st *State, p board.Project, now time.Time) string {
	b, ok := st.Repos[p.Slug]
	if !ok || b.Repo != p.Repo || !now.Before(b.Until) {
		return ""
	}
	return fmt.Sprintf("the repository of %s failed %d time(s) in a row (%s); next try at %s, or at once after `bonsai project edit %s --repo …`",
		p.Slug, b.Failures, b.Error, b.Until.UTC().Format(time.RFC3339), p.Slug)
}

// repoFailedText is the comment on the ticket whose run found p's
// repository unusable, posted on the first failure in a row only: the
// retries after each backoff add run errors, not comments. err comes from
// the workspace, with the data directory's paths hidden and the URL's
// credentials redacted.
func repoFailedText(p board.Project, b RepoBackoff, err error) string {
	return fmt.Sprintf("The repository of %s could not be used, so no agent ran:\n\n%s\n\n"+
		"The project's tickets wait until %s and are tried again then, each further failure doubling the wait (up to an hour); "+
		"`bonsai project edit %s --repo …` retries at once.",
		p.Slug, indented(errText(err)), b.Until.UTC().Format(time.RFC3339), p.Slug)
}
