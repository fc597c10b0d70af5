package web

import (
	"encoding/json"
	"errors"
	"net/http"

	"github.com/bonsai-run/bonsai/internal/board"
)

// handlerFunc is a handler that returns its failure instead of writing it.
type handlerFunc func(w http.ResponseWriter, r *http.Request) error

// httpError is a failure of the HTTP layer itself: a bad form, a stale edit,
// a missing CSRF token.
type httpError struct {
	status int
	code   string
	msg    string
}

func (e *httpError) Error() string { return e.msg }

// badRequest returns a 400 error with a message for the person.
func badRequest(msg string) error {
	return &httpError{status: http.StatusBadRequest, code: board.EINVALID, msg: msg}
}

// classify maps an error to its HTTP status, its code and the message shown.
// It is the one place board error codes become statuses.
func classify(err error) (status int, code, msg string) {
	var he *httpError
	if errors.As(err, &he) {
		return he.status, he.code, he.msg
	}
	var mbe *http.MaxBytesError
	if errors.As(err, &mbe) {
		he := bodyError(err).(*httpError)
		return he.status, he.code, he.msg
	}
	switch code := board.ErrorCode(err); code {
	case board.EINVALID:
		return http.StatusBadRequest, code, err.Error()
	case board.ENOTFOUND:
		return http.StatusNotFound, code, err.Error()
	case board.EREFUSED: // the request is understood; a board rule forbids it
		return http.StatusUnprocessableEntity, code, err.Error()
	case board.ECONFLICT:
		return http.StatusConflict, code, err.Error()
	}
	return http.StatusInternalServerError, board.EINTERNAL, "something went wrong on the server; the details are in logs/web.log"
}

// handle adapts a handlerFunc, writing its error.
func (s *Server) handle(fn handlerFunc) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if err := fn(w, r); err != nil {
			s.fail(w, r, err)
		}
	})
}

// apiError is the JSON body of a failed API request.
type apiError struct {
	Error struct {
		Code    string `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// fail writes err: a JSON error for the API, the bare message for htmx
// requests (the page shows it as a notice) and an error page otherwise.
// Internal errors are logged and their details kept from the client.
func (s *Server) fail(w http.ResponseWriter, r *http.Request, err error) {
	status, code, msg := classify(err)
	if status == http.StatusInternalServerError {
		s.log.Error("request failed", "method", r.Method, "path", r.URL.Path, "err", err)
	}
	switch {
	case isAPI(r) || wantsJSON(r):
		var body apiError
		body.Error.Code, body.Error.Message = code, msg
		writeJSON(w, status, body)
	case r.Header.Get("HX-Request") != "":
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.WriteHeader(status)
		w.Write([]byte(msg))
	default:
		s.render(w, r, status, "error", pageData{Title: http.StatusText(status), Data: errorView{Status: status, Message: msg}})
	}
}

type errorView struct {
	Status  int
	Message string
}

// wantsJSON reports whether the client asked for JSON.
func wantsJSON(r *http.Request) bool {
	return r.Header.Get("Accept") == "application/json"
}

// writeJSON writes v with the given status.
func writeJSON(w http.ResponseWriter, status int, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_, err = w.Write(append(b, '\n'))
	return err
}
