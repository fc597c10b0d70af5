package forgesync

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/forge"
	"github.com/bonsai-run/bonsai/internal/heartbeat"
	"github.com/bonsai-run/bonsai/internal/land"
)

// A merge the forge did not answer (down, or asking to wait) is kept to
// be tried again by the beats, with growing waits (docs/forges.md, "When
// the forge refuses"): one file per ticket in Options.MergesDir, written
// by the process that approved and read by the heartbeat's.

// Retry waits: the first after a minute (or the forge's Retry-After),
// each next one twice as long up to an hour; after a day Bonsai stops
// and says so.
const (
	retryFirst = time.Minute
	retryMax   = time.Hour
	retryFor   = 24 * time.Hour
)

// pendingMerge is an approved merge to try again.
type pendingMerge struct {
	Project  string    `json:"project"`
	Number   int       `json:"number"`
	PR       int       `json:"pr"`
	SHA      string    `json:"sha"` // the head that was approved
	Style    string    `json:"style"`
	Subject  string    `json:"subject"`
	Body     string    `json:"body"`
	Approver string    `json:"approver"`
	First    time.Time `json:"first"`
	Next     time.Time `json:"next"`
	Attempts int       `json:"attempts"`
}

// transient reports a failure a later try may not meet: the forge down,
// or asking to wait.
func transient(err error) bool {
	r := forge.ReasonOf(err)
	return r == forge.Unavailable || r == forge.RateLimited
}

// mergeFile is the file of ticket ref's pending merge; "" without
// Options.MergesDir.
func (f *Forges) mergeFile(ref board.Ref) string {
	if f.opts.MergesDir == "" {
		return ""
	}
	return filepath.Join(f.opts.MergesDir, ref.Project+"-"+strconv.Itoa(ref.Number)+".json")
}

// newPending is the pending merge of an approval of l that failed now,
// to merge only head (the reviewed commit, else the head last seen).
func newPending(req land.MergeRequest, l board.Landing, head string, now time.Time) pendingMerge {
	who := req.Approver.Name
	if who == "" {
		who = "a person"
	}
	return pendingMerge{Project: l.Ref.Project, Number: l.Ref.Number, PR: l.PRNumber, SHA: head,
		Style: string(style(req.Project.Agent.LandStyle)), Subject: req.Message.Subject, Body: req.Message.Body,
		Approver: who, First: now}
}

// queueMerge keeps pm, a merge that failed for a transient reason (err),
// to be tried again, and returns when; ok is false when merges are not
// kept (no MergesDir) or the first try was a day ago.
func (f *Forges) queueMerge(ref board.Ref, pm pendingMerge, err error) (time.Time, bool) {
	path := f.mergeFile(ref)
	if path == "" {
		return time.Time{}, false
	}
	now := f.opts.Now()
	if now.Sub(pm.First) >= retryFor {
		f.dropMerge(ref)
		return time.Time{}, false
	}
	pm.Attempts++
	pm.Next = now.Add(backoff(pm.Attempts-1, err))
	if err := writePending(path, pm); err != nil {
		f.log.Warn("keep a merge to try again", "ticket", ref.String(), "err", err)
		return time.Time{}, false
	}
	return pm.Next, true
}

// backoff is the wait before the next try after attempts failed ones,
// the last failing with err: a minute, twice as long each time up to an
// hour, or the forge's Retry-After when longer.
func backoff(attempts int, err error) time.Duration {
	wait := min(retryFirst<<min(attempts, 10), retryMax)
	var fe *forge.Error
	if errors.As(err, &fe) && fe.RetryAfter > wait {
		wait = fe.RetryAfter
	}
	return wait
}

// retryFailure is the failure of an approval whose merge Bonsai tries
// again at next.
func retryFailure(err error, next time.Time) error {
	var fe *forge.Error
	errors.As(err, &fe)
	return &land.Failure{Cause: fe.Cause(), Err: err,
		Fix: fmt.Sprintf("the forge did not answer, or asked to wait; Bonsai tries the merge again at %s, then with growing waits for up to a day, and the ticket becomes DONE once it merges (approve again to try now)",
			next.Local().Format("15:04 MST"))}
}

// readPending reads a kept retry (a merge or a pull request to open)
// from path; false when there is none or it cannot be read (logged).
func readPending[T any](f *Forges, path string) (T, bool) {
	var v T
	b, err := os.ReadFile(path)
	if err != nil {
		if !errors.Is(err, fs.ErrNotExist) {
			f.log.Warn("read a retry", "file", path, "err", err)
		}
		return v, false
	}
	if err := json.Unmarshal(b, &v); err != nil {
		f.log.Warn("read a retry", "file", path, "err", err)
		return v, false
	}
	return v, true
}

// writePending keeps v at path, written whole or not at all.
func writePending(path string, v any) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	b, _ := json.Marshal(v)
	tmp, err := os.CreateTemp(filepath.Dir(path), ".retry-*")
	if err != nil {
		return err
	}
	_, err = tmp.Write(b)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		os.Remove(tmp.Name())
	}
	return err
}

// dropMerge forgets ticket ref's pending merge.
func (f *Forges) dropMerge(ref board.Ref) {
	if path := f.mergeFile(ref); path != "" {
		if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			f.log.Warn("forget a merge to try again", "ticket", ref.String(), "err", err)
		}
	}
}

// retryMerge tries again, when it is due, the pending merge of ticket
// ref's pull request, as the sync left it this beat.
func (f *Forges) retryMerge(ctx context.Context, c forge.Client, ref board.Ref, rep *heartbeat.ReviewSync) error {
	path := f.mergeFile(ref)
	if path == "" {
		return nil
	}
	pm, found := readPending[pendingMerge](f, path)
	if !found || f.opts.Now().Before(pm.Next) {
		return nil
	}
	l, err := f.opts.Board.Landing(ctx, ref)
	if err != nil {
		return err
	}
	t, err := f.opts.Board.Ticket(ctx, ref)
	if err != nil {
		return err
	}
	if t.State != board.Verification || l.PRState != board.PROpen || pm.PR != l.PRNumber || pm.SHA != l.HeadSHA {
		// Returned, merged or closed since, or the head changed after the
		// approval: that approval is not this pull request's any more.
		f.dropMerge(ref)
		return nil
	}
	sha, err := c.Merge(ctx, l.PRNumber, forge.MergeRequest{Style: forge.Style(pm.Style), Title: pm.Subject, Message: pm.Body, SHA: pm.SHA})
	if transient(err) {
		if next, ok := f.queueMerge(ref, pm, err); ok {
			f.log.Info("merge to try again", "ticket", ref.String(), "at", next)
			return nil
		}
		f.note(ctx, ref, board.KindStatus, fmt.Sprintf("Bonsai stopped trying to merge %s, approved by %s: %s has not merged it for a day (%s). Approve again once it answers.",
			prName(l.Forge, l.PRNumber), pm.Approver, forgeName(l.Forge), f.opts.Redact(err.Error())))
		return nil
	}
	f.dropMerge(ref)
	if err != nil {
		var fe *forge.Error
		if !errors.As(err, &fe) {
			return err
		}
		f.note(ctx, ref, board.KindStatus, fmt.Sprintf("Bonsai tried again to merge %s, approved by %s, and %s refused: %s\n\nThe ticket stays in VERIFICATION; approve again once that is fixed.",
			prName(l.Forge, l.PRNumber), pm.Approver, forgeName(l.Forge), f.opts.Redact(fe.Error())))
		return nil
	}
	l.PRState, l.Commit, l.LandedAt, l.Error = board.PRMerged, sha, f.opts.Now(), ""
	if err := f.save(ctx, l); err != nil {
		return err
	}
	if _, err := f.opts.Board.MoveTicket(ctx, ref, board.MoveRequest{To: board.Done, Actor: board.Human}, pm.Approver); err != nil {
		return err
	}
	rep.Merged++
	f.note(ctx, ref, board.KindStatus, fmt.Sprintf("Merged %s on %s (%s), as %s approved, once the forge answered again; the ticket is DONE.",
		prName(l.Forge, l.PRNumber), forgeName(l.Forge), short(sha), pm.Approver))
	return nil
}
