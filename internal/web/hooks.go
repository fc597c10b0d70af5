package web

import (
	"context"
	"errors"
	"io"
	"net/http"
	"time"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/hook"
)

// MaxHookBody is the largest delivery a hook reads; a larger one is
// refused with 413, by its Content-Length before any of it is read.
const MaxHookBody = maxBody

// HookSecrets seals a hook's secret on its way into the board and opens
// it to verify a delivery: the credentials store (credentials.Store), so
// that bonsai.db alone never holds a hook's secret.
type HookSecrets interface {
	Seal(name, value string) (string, error)
	Unseal(name, sealed string) (string, error)
}

// hookAnswer is the JSON body of a hook's answer.
type hookAnswer struct {
	Outcome board.DeliveryOutcome `json:"outcome,omitempty"`
	Detail  string                `json:"detail,omitempty"`
	Ticket  string                `json:"ticket,omitempty"`
	Error   *hookError            `json:"error,omitempty"`
}

type hookError struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

// unverifiedMsg is the whole answer to a delivery whose sender was not
// proven, whether the hook exists or not.
const unverifiedMsg = "the delivery did not verify: no hook by that name takes it with that signature or token"

// hookDelivery answers POST /hooks/{name}, the one route without the web
// token: the hook's secret proves the sender. Until it does, every answer
// is the same whether the hook exists or not: 413 for a body over 1 MiB
// (by its Content-Length, unread), else 401. What went wrong is in the
// hook's delivery log, for the people who may read it.
func (s *Server) hookDelivery(w http.ResponseWriter, r *http.Request) error {
	name := r.PathValue("name")
	if r.ContentLength > MaxHookBody {
		writeHook(w, http.StatusRequestEntityTooLarge, hookAnswer{Error: &hookError{Code: "too_large",
			Message: "the delivery is larger than 1 MiB; nothing of it was read"}})
		s.afterAnswer(w, func() { s.refuseUnread(r.Context(), name, r.ContentLength) })
		return nil
	}
	body, err := io.ReadAll(r.Body)
	if err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			writeHook(w, http.StatusRequestEntityTooLarge, hookAnswer{Error: &hookError{Code: "too_large",
				Message: "the delivery is larger than 1 MiB; the rest of it was not read"}})
			s.afterAnswer(w, func() { s.refuseUnread(r.Context(), name, MaxHookBody+1) })
			return nil
		}
		return writeHook(w, http.StatusBadRequest, hookAnswer{Error: &hookError{Code: "invalid", Message: "unreadable body"}})
	}
	h, secret, err := s.hookSecret(r.Context(), name)
	if err != nil {
		// Verify against a secret of nobody's, so that the answer takes
		// as long as a wrong signature's.
		hook.Verify(board.Hook{Scheme: board.HookGitHub}, "no hook by this name", r.Header, body, s.opts.Now())
		return writeHook(w, http.StatusUnauthorized, hookAnswer{Error: &hookError{Code: "unauthorized", Message: unverifiedMsg}})
	}
	d, err := hook.Verify(h, secret, r.Header, body, s.opts.Now())
	if err != nil {
		return s.refuseDelivery(r.Context(), w, h, err, int64(len(body)))
	}
	return s.actOnDelivery(r.Context(), w, h, d, int64(len(body)))
}

// hookSecret returns the hook and its opened secret; any failure is
// logged (never the secret) and answered as unverified.
func (s *Server) hookSecret(ctx context.Context, name string) (board.Hook, string, error) {
	if board.ValidateHookName(name) != nil {
		return board.Hook{}, "", errors.New("no such hook")
	}
	h, err := s.store.Hook(ctx, name)
	if err != nil {
		return board.Hook{}, "", err
	}
	if s.opts.HookSecrets == nil {
		s.logDelivery(ctx, board.HookDelivery{HookName: name, Status: http.StatusUnauthorized, Outcome: board.DeliveryRefused,
			Detail: "this server was started without the credentials store: it cannot open hook secrets"})
		return board.Hook{}, "", errors.New("no secrets")
	}
	secret, err := s.opts.HookSecrets.Unseal(hook.SecretName(name), h.Secret)
	if err != nil {
		s.logDelivery(ctx, board.HookDelivery{HookName: name, Status: http.StatusUnauthorized, Outcome: board.DeliveryRefused,
			Detail: "the hook's secret cannot be opened: " + err.Error()})
		return board.Hook{}, "", err
	}
	return h, secret, nil
}

// refuseUnread logs a delivery refused for its size, when the hook
// exists.
func (s *Server) refuseUnread(ctx context.Context, name string, size int64) {
	if board.ValidateHookName(name) != nil {
		return
	}
	if _, err := s.store.Hook(ctx, name); err != nil {
		return
	}
	s.logDelivery(ctx, board.HookDelivery{HookName: name, Status: http.StatusRequestEntityTooLarge, Outcome: board.DeliveryRefused,
		Size: size, Detail: "the delivery is larger than 1 MiB: shorten the payload or send only the fields the hook needs"})
}

// refuseDelivery answers a delivery hook.Verify refused: an unproven one
// as unverified, a proven one with its reason.
func (s *Server) refuseDelivery(ctx context.Context, w http.ResponseWriter, h board.Hook, err error, size int64) error {
	var ref *hook.Refusal
	if !errors.As(err, &ref) {
		ref = &hook.Refusal{Status: http.StatusBadRequest, Reason: err.Error()}
	}
	rec := board.HookDelivery{HookName: h.Name, Status: ref.Status, Outcome: board.DeliveryRefused, Detail: ref.Reason, Size: size}
	if ref.Unverified {
		// Answered before the log is written: an unproven sender cannot
		// time the write to learn that the hook exists.
		writeHook(w, http.StatusUnauthorized, hookAnswer{Error: &hookError{Code: "unauthorized", Message: unverifiedMsg}})
		s.afterAnswer(w, func() { s.logDelivery(ctx, rec) })
		return nil
	}
	s.logDelivery(ctx, rec)
	return writeHook(w, ref.Status, hookAnswer{Outcome: board.DeliveryRefused, Error: &hookError{Code: "invalid", Message: ref.Reason}})
}

// afterAnswer sends the answer written so far to the client, then runs
// fn.
func (s *Server) afterAnswer(w http.ResponseWriter, fn func()) {
	_ = http.NewResponseController(w).Flush()
	fn()
}

// logDelivery records a finished delivery; a failure to is logged.
func (s *Server) logDelivery(ctx context.Context, d board.HookDelivery) {
	if _, err := s.store.StartDelivery(context.WithoutCancel(ctx), d); err != nil {
		s.log.Error("record a hook delivery", "hook", d.HookName, "err", err)
	}
}

// finish records what became of delivery d and answers it.
func (s *Server) finish(ctx context.Context, w http.ResponseWriter, d board.HookDelivery, ans hookAnswer) error {
	if _, err := s.store.FinishDelivery(context.WithoutCancel(ctx), d); err != nil {
		s.log.Error("record a hook delivery's outcome", "hook", d.HookName, "err", err)
	}
	ans.Outcome = d.Outcome
	if d.Outcome != board.DeliveryDone && d.Outcome != board.DeliveryIgnored && d.Outcome != board.DeliveryReceived {
		ans.Error = &hookError{Code: string(d.Outcome), Message: d.Detail}
	} else {
		ans.Detail = d.Detail
	}
	return writeHook(w, d.Status, ans)
}

func writeHook(w http.ResponseWriter, status int, a hookAnswer) error {
	w.Header().Set("Cache-Control", "no-store")
	writeJSON(w, status, a)
	return nil
}

// hookTimeout bounds an action a delivery starts in the background.
const hookTimeout = 5 * time.Minute
