package web

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"sync"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/hook"
)

// actOnDelivery records a verified delivery, once per delivery id, and
// does the hook's action.
func (s *Server) actOnDelivery(ctx context.Context, w http.ResponseWriter, h board.Hook, d hook.Delivery, size int64) error {
	rec := board.HookDelivery{HookName: h.Name, DeliveryID: d.ID, Event: d.Event, Size: size, Status: http.StatusAccepted,
		Outcome: board.DeliveryReceived}
	ignored := ""
	if !hook.Matches(h.Events, d.Event) {
		ignored = fmt.Sprintf("event %q is not one the hook takes (%s)", d.Event, strings.Join(h.Events, ", "))
	} else if why := hook.When(h.When, d.Payload); why != "" {
		ignored = why
	}
	if ignored != "" {
		rec.Status, rec.Outcome, rec.Detail = http.StatusOK, board.DeliveryIgnored, ignored
	}
	rec, err := s.store.StartDelivery(ctx, rec)
	switch {
	case board.ErrorCode(err) == board.ECONFLICT:
		s.logDelivery(ctx, board.HookDelivery{HookName: h.Name, Event: d.Event, Size: size, Status: http.StatusConflict,
			Outcome: board.DeliveryReplay, Detail: err.Error()})
		return writeHook(w, http.StatusConflict, hookAnswer{Outcome: board.DeliveryReplay,
			Error: &hookError{Code: "replay", Message: "delivery " + d.ID + " was received before; nothing was done again"}})
	case err != nil:
		s.log.Error("record a hook delivery", "hook", h.Name, "err", err)
		return writeHook(w, http.StatusServiceUnavailable, hookAnswer{Error: &hookError{Code: "unavailable",
			Message: "the board could not record the delivery; redeliver it later"}})
	case ignored != "":
		return writeHook(w, http.StatusOK, hookAnswer{Outcome: board.DeliveryIgnored, Detail: ignored})
	}
	p, err := s.store.Project(ctx, h.ProjectSlug)
	if err == nil && !p.Active {
		err = board.Errorf(board.EREFUSED, "project %s is archived: restore it for the hook to act", p.Slug)
	}
	if err != nil {
		return s.finish(ctx, w, failed(rec, err), hookAnswer{})
	}
	switch h.Action {
	case board.HookTicket:
		return s.hookTicket(ctx, w, h, d, rec)
	case board.HookSync:
		return s.hookSync(ctx, w, h, rec)
	case board.HookSchedule:
		return s.hookCall(ctx, w, rec, s.opts.FireSchedule != nil, func() (string, error) {
			return s.opts.FireSchedule(ctx, h.ProjectSlug, h.Target)
		})
	case board.HookRun:
		return s.hookRun(ctx, w, h, d, rec)
	}
	return s.finish(ctx, w, failed(rec, board.Errorf(board.EINVALID, "unknown action %q", h.Action)), hookAnswer{})
}

// failed records err as the delivery's outcome: what the sender could fix
// (a missing field, a board rule) is refused, with 422; what may pass
// (the board down) failed, with 500, and a redelivery tries again.
func failed(rec board.HookDelivery, err error) board.HookDelivery {
	var missing *hook.MissingError
	switch {
	case errors.As(err, &missing):
		rec.Status, rec.Outcome, rec.Detail = http.StatusUnprocessableEntity, board.DeliveryRefused, err.Error()
	case board.ErrorCode(err) != board.EINTERNAL:
		rec.Status, rec.Outcome, rec.Detail = http.StatusUnprocessableEntity, board.DeliveryRefused, err.Error()
	default:
		rec.Status, rec.Outcome, rec.Detail = http.StatusInternalServerError, board.DeliveryFailed,
			"the action failed on the server ("+err.Error()+"); a redelivery tries again"
	}
	return rec
}

// hookTicket creates the ticket of h's template.
func (s *Server) hookTicket(ctx context.Context, w http.ResponseWriter, h board.Hook, d hook.Delivery, rec board.HookDelivery) error {
	t, err := hook.Ticket(h, d.Payload)
	if err == nil {
		t, err = s.store.CreateTicket(ctx, t, board.System)
	}
	if err != nil {
		return s.finish(ctx, w, failed(rec, err), hookAnswer{})
	}
	rec.Status, rec.Outcome, rec.Ticket = http.StatusCreated, board.DeliveryDone, t.Number
	rec.Detail = fmt.Sprintf("created %s: %s", t.Ref(), t.Title)
	return s.finish(ctx, w, rec, hookAnswer{Ticket: t.Ref().String()})
}

// hookRun runs the ticket h's target names.
func (s *Server) hookRun(ctx context.Context, w http.ResponseWriter, h board.Hook, d hook.Delivery, rec board.HookDelivery) error {
	target, err := hook.Render(h.Target, d.Payload)
	if err != nil {
		return s.finish(ctx, w, failed(rec, err), hookAnswer{})
	}
	n, err := strconv.Atoi(strings.TrimPrefix(strings.TrimSpace(target), "#"))
	if err != nil || n < 1 {
		return s.finish(ctx, w, failed(rec, board.Errorf(board.EINVALID, "the ticket to run, %q, is not a ticket number", target)), hookAnswer{})
	}
	rec.Ticket = n
	ref := board.Ref{Project: h.ProjectSlug, Number: n}
	return s.hookCall(ctx, w, rec, s.opts.RunNow != nil, func() (string, error) { return s.opts.RunNow(ctx, ref) })
}

// hookCall does an action the wiring provides (fire a schedule, run a
// ticket) and records what it said.
func (s *Server) hookCall(ctx context.Context, w http.ResponseWriter, rec board.HookDelivery, wired bool, call func() (string, error)) error {
	if !wired {
		return s.finish(ctx, w, failed(rec, board.Errorf(board.EREFUSED, "this server cannot do the hook's action")), hookAnswer{})
	}
	msg, err := call()
	if err != nil {
		return s.finish(ctx, w, failed(rec, err), hookAnswer{})
	}
	rec.Status, rec.Outcome, rec.Detail = http.StatusOK, board.DeliveryDone, msg
	return s.finish(ctx, w, rec, hookAnswer{})
}

// hookSync syncs the project's tracker now, in the background: the
// answer (202) does not wait for the tracker. Deliveries arriving while
// the project syncs make one more sync after it, not one each.
func (s *Server) hookSync(ctx context.Context, w http.ResponseWriter, h board.Hook, rec board.HookDelivery) error {
	if s.opts.SyncTracker == nil {
		return s.finish(ctx, w, failed(rec, board.Errorf(board.EREFUSED, "this server does not sync trackers")), hookAnswer{})
	}
	p, _ := s.store.Project(ctx, h.ProjectSlug)
	if p.Agent.Tracker == board.TrackerNone {
		return s.finish(ctx, w, failed(rec, board.Errorf(board.EREFUSED,
			"project %s has no tracker; set one with 'bonsai project edit %s --tracker github'", p.Slug, p.Slug)), hookAnswer{})
	}
	rec.Detail = "syncing the tracker of " + h.ProjectSlug + " now"
	run := func() (string, error) {
		sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), hookTimeout)
		defer cancel()
		return s.opts.SyncTracker(sctx, h.ProjectSlug)
	}
	s.syncs.request(h.ProjectSlug, run, func(msg string, err error) {
		done := rec
		if err != nil {
			done = failed(rec, err)
			done.Status = http.StatusAccepted
		} else {
			done.Outcome, done.Detail = board.DeliveryDone, msg
		}
		if _, err := s.store.FinishDelivery(context.WithoutCancel(ctx), done); err != nil {
			s.log.Error("record a hook delivery's outcome", "hook", h.Name, "err", err)
		}
	})
	return writeHook(w, http.StatusAccepted, hookAnswer{Outcome: board.DeliveryReceived, Detail: rec.Detail})
}

// syncQueue runs at most one sync per project at a time: deliveries that
// arrive while one runs wait for one more sync after it, together.
type syncQueue struct {
	mu      sync.Mutex
	waiting map[string][]func(string, error) // a project's key is there while it syncs
	wg      sync.WaitGroup
}

// request syncs project now, or once after the running sync, and calls
// done with the result.
func (q *syncQueue) request(project string, sync func() (string, error), done func(string, error)) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.waiting == nil {
		q.waiting = map[string][]func(string, error){}
	}
	if w, ok := q.waiting[project]; ok {
		q.waiting[project] = append(w, done)
		return
	}
	q.waiting[project] = nil
	q.wg.Add(1)
	go q.loop(project, sync, []func(string, error){done})
}

// loop syncs for batch, then for those who came meanwhile, until none
// did.
func (q *syncQueue) loop(project string, sync func() (string, error), batch []func(string, error)) {
	defer q.wg.Done()
	for len(batch) > 0 {
		msg, err := sync()
		for _, done := range batch {
			done(msg, err)
		}
		q.mu.Lock()
		if batch = q.waiting[project]; len(batch) == 0 {
			delete(q.waiting, project)
		} else {
			q.waiting[project] = nil
		}
		q.mu.Unlock()
	}
}
