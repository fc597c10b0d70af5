package forgesync

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/heartbeat"
)

// A pull request Bonsai could not open or update when its ticket reached
// VERIFICATION (the forge down, a token missing or refused) is tried
// again by the beats with growing waits, like a merge (retry.go), for up
// to a day: one file per ticket under Options.MergesDir/publish, written
// by Publish and read by SyncReviews. A person's approval in that time
// tries at once (Merge).

// pendingPublish is a pull request to open or update again.
type pendingPublish struct {
	Project  string    `json:"project"`
	Number   int       `json:"number"`
	First    time.Time `json:"first"`
	Next     time.Time `json:"next"`
	Attempts int       `json:"attempts"`
}

// publishDir holds the pending publishes; "" without Options.MergesDir.
func (f *Forges) publishDir() string {
	if f.opts.MergesDir == "" {
		return ""
	}
	return filepath.Join(f.opts.MergesDir, "publish")
}

// publishFile is the file of ticket ref's pending publish; "" when none
// are kept.
func (f *Forges) publishFile(ref board.Ref) string {
	dir := f.publishDir()
	if dir == "" {
		return ""
	}
	return filepath.Join(dir, ref.Project+"-"+strconv.Itoa(ref.Number)+".json")
}

// queuePublish keeps ticket ref's failed publish (err) to try again and
// returns when; ok is false when publishes are not kept, and stopped is
// true too when the first try was a day ago (it is forgotten then).
func (f *Forges) queuePublish(ref board.Ref, err error) (next time.Time, ok, stopped bool) {
	path := f.publishFile(ref)
	if path == "" {
		return time.Time{}, false, false
	}
	now := f.opts.Now()
	pp, found := readPending[pendingPublish](f, path)
	if !found {
		pp = pendingPublish{Project: ref.Project, Number: ref.Number, First: now}
	}
	if now.Sub(pp.First) >= retryFor {
		f.dropPublish(ref)
		return time.Time{}, false, true
	}
	pp.Next = now.Add(backoff(pp.Attempts, err))
	pp.Attempts++
	if werr := writePending(path, pp); werr != nil {
		f.log.Warn("keep a pull request to open again", "ticket", ref.String(), "err", werr)
		return time.Time{}, false, false
	}
	return pp.Next, true, false
}

// dropPublish forgets ticket ref's pending publish.
func (f *Forges) dropPublish(ref board.Ref) {
	if path := f.publishFile(ref); path != "" {
		if err := os.Remove(path); err != nil && !errors.Is(err, os.ErrNotExist) {
			f.log.Warn("forget a pull request to open again", "ticket", ref.String(), "err", err)
		}
	}
}

// retryPublishes tries again the due publishes of project (all when
// ""), skipping forges that asked to wait; a failure is counted in rep
// for the banner, and written on the ticket by Publish when it is new.
func (f *Forges) retryPublishes(ctx context.Context, project string, waiting map[string]time.Time, rep *heartbeat.ReviewSync) error {
	dir := f.publishDir()
	if dir == "" {
		return nil
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		if !errors.Is(err, os.ErrNotExist) {
			f.log.Warn("read the pull requests to open again", "dir", dir, "err", err)
		}
		return nil
	}
	names := make([]string, 0, len(entries))
	for _, e := range entries {
		if e.Type().IsRegular() && strings.HasSuffix(e.Name(), ".json") && !strings.HasPrefix(e.Name(), ".") {
			names = append(names, e.Name())
		}
	}
	slices.Sort(names)
	projects := map[string]board.Project{}
	for _, name := range names {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		pp, ok := readPending[pendingPublish](f, filepath.Join(dir, name))
		if !ok || (project != "" && pp.Project != project) || f.opts.Now().Before(pp.Next) {
			continue
		}
		if err := f.retryPublish(ctx, board.Ref{Project: pp.Project, Number: pp.Number}, projects, waiting, rep); err != nil {
			return err
		}
	}
	return nil
}

// retryPublish tries again to open or update ticket ref's pull request,
// unless the ticket left VERIFICATION, got its pull request since, or
// its project no longer lands through pull requests.
func (f *Forges) retryPublish(ctx context.Context, ref board.Ref, projects map[string]board.Project, waiting map[string]time.Time, rep *heartbeat.ReviewSync) error {
	t, err := f.opts.Board.Ticket(ctx, ref)
	if board.ErrorCode(err) == board.ENOTFOUND {
		f.dropPublish(ref)
		return nil
	} else if err != nil {
		return err
	}
	l, err := f.opts.Board.Landing(ctx, ref)
	if err != nil && board.ErrorCode(err) != board.ENOTFOUND {
		return err
	}
	p, ok := projects[ref.Project]
	if !ok {
		if p, err = f.opts.Board.Project(ctx, ref.Project); err != nil {
			return err
		}
		projects[ref.Project] = p
	}
	if t.State != board.Verification || (l.PRNumber > 0 && l.PRState == board.PROpen) || !f.UsesPRs(p) {
		f.dropPublish(ref)
		return nil
	}
	if c, err := f.Client(p); err == nil {
		if until, ok := waiting[c.Repo().API]; ok && until.After(f.opts.Now()) {
			rep.Waiting++
			return nil
		}
	}
	if err := f.Publish(ctx, p, t); err != nil {
		rep.Errors++
		rep.Failures = append(rep.Failures, heartbeat.ReviewFailure{Ticket: ref.String(), Error: f.opts.Redact(err.Error())})
		return nil
	}
	f.log.Info("pull request opened on a later try", "ticket", ref.String())
	return nil
}

// retryWords says on the ticket when Bonsai tries again: next, or, when
// it stopped (ok false), what a person does.
func retryWords(next time.Time, ok bool) string {
	if !ok {
		return "Bonsai does not try again by itself: once that is fixed, approving the ticket opens the pull request and merges it, or move the ticket back to IN_PROGRESS to have the agent submit it again."
	}
	return fmt.Sprintf("Bonsai tries again at %s, then with growing waits for up to a day; approving the ticket tries at once.", next.Local().Format("15:04 MST"))
}
