package web

import (
	"errors"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// maxBody is the largest request body accepted: a ticket's description
// (256 KiB) with room for the other fields.
const maxBody = 1 << 20

// csp allows only the server's own scripts, styles and connections: no
// inline scripts, no eval, no framing.
const csp = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; " +
	"connect-src 'self'; font-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"

// middleware wraps the routes with what every request goes through, outer
// first: logging, security headers, the Host check, authentication, the body
// limit and the CSRF check.
func (s *Server) middleware(next http.Handler) http.Handler {
	return s.logRequests(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Content-Security-Policy", csp)
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("X-Frame-Options", "DENY")
		h.Set("Referrer-Policy", "no-referrer")
		h.Set("Cross-Origin-Opener-Policy", "same-origin")
		if !s.opts.Public && !loopbackHost(r.Host) {
			s.fail(w, r, &httpError{status: http.StatusMisdirectedRequest,
				msg: "this server answers only requests for localhost; start it with --public to serve other names"})
			return
		}
		if r.Body != nil {
			limit := s.bodyLimit(r)
			if err := tooLarge(r, limit); err != nil {
				s.fail(w, r, err)
				return
			}
			r.Body = http.MaxBytesReader(w, r.Body, limit)
		}
		if open(r.URL.Path) || r.Method == http.MethodPost && hookPath(r.URL.Path) {
			next.ServeHTTP(w, r)
			return
		}
		if tok := r.URL.Query().Get("token"); tok != "" && r.Method == http.MethodGet && !isAPI(r) {
			s.tokenLink(w, r, tok)
			return
		}
		kind := s.auth.check(r)
		if kind == authNone {
			s.unauthorized(w, r)
			return
		}
		if kind == authCookie && !safeMethod(r.Method) {
			if err := s.checkCSRF(r); err != nil {
				s.fail(w, r, err)
				return
			}
		}
		next.ServeHTTP(w, r)
	}))
}

// open reports whether path is served without authentication.
func open(path string) bool {
	return path == "/login" || path == "/healthz" || strings.HasPrefix(path, "/static/")
}

// hookPath reports whether path is a hook's, /hooks/<name>: a POST there
// is proven by the hook's secret, not the web token. Any other method or
// path below it needs the token.
func hookPath(path string) bool {
	name, ok := strings.CutPrefix(path, "/hooks/")
	return ok && name != "" && !strings.Contains(name, "/")
}

// tokenLink logs in with the token of a `/?token=…` link and redirects to the
// same URL without it, so the token does not stay in the address bar or
// the history.
func (s *Server) tokenLink(w http.ResponseWriter, r *http.Request, tok string) {
	if !s.auth.validToken(tok) {
		s.renderLogin(w, r, http.StatusUnauthorized, withoutToken(r.URL),
			"The token in that link is wrong. Paste the token from the web-token file in the data directory.")
		return
	}
	s.auth.setSession(w, r)
	http.Redirect(w, r, withoutToken(r.URL), http.StatusSeeOther)
}

// unauthorized answers a request without valid credentials: 401 with a JSON
// error for the API and the login form for pages.
func (s *Server) unauthorized(w http.ResponseWriter, r *http.Request) {
	if isAPI(r) || r.Header.Get("Authorization") != "" {
		w.Header().Set("WWW-Authenticate", `Bearer realm="bonsai"`)
		s.fail(w, r, &httpError{status: http.StatusUnauthorized, code: "unauthorized",
			msg: "missing or wrong credentials: send Authorization: Bearer <web-token> or log in"})
		return
	}
	if r.Header.Get("HX-Request") != "" {
		w.Header().Set("HX-Redirect", "/login")
		s.fail(w, r, &httpError{status: http.StatusUnauthorized, code: "unauthorized", msg: "your session ended; log in again"})
		return
	}
	next := r.URL.RequestURI()
	if !safeMethod(r.Method) {
		next = "/"
	}
	s.renderLogin(w, r, http.StatusUnauthorized, next, "")
}

// checkCSRF refuses a state-changing browser request without the CSRF token
// or sent from another origin.
func (s *Server) checkCSRF(r *http.Request) error {
	if o := r.Header.Get("Origin"); o != "" && o != "null" {
		if u, err := url.Parse(o); err != nil || u.Host != r.Host {
			return &httpError{status: http.StatusForbidden, code: "csrf", msg: "cross-origin request refused"}
		}
	}
	if err := s.parseForm(r); err != nil {
		return err
	}
	if !s.auth.validCSRF(r) {
		return &httpError{status: http.StatusForbidden, code: "csrf",
			msg: "missing or wrong CSRF token; reload the page and try again"}
	}
	return nil
}

// bodyError classifies a failure to read a request body.
func bodyError(err error) error {
	var mbe *http.MaxBytesError
	if errors.As(err, &mbe) {
		return &httpError{status: http.StatusRequestEntityTooLarge, code: "too_large",
			msg: "the request is larger than 1 MiB; shorten the text"}
	}
	return &httpError{status: http.StatusBadRequest, code: "invalid", msg: "unreadable request body: " + err.Error()}
}

// loopbackHost reports whether a Host header names this machine.
func loopbackHost(hostport string) bool {
	host := hostport
	if h, _, err := net.SplitHostPort(hostport); err == nil {
		host = h
	}
	host = strings.TrimSuffix(strings.TrimPrefix(host, "["), "]")
	if host == "localhost" || strings.HasSuffix(host, ".localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// isAPI reports whether r is a JSON API request.
func isAPI(r *http.Request) bool {
	return strings.HasPrefix(r.URL.Path, "/api/") || r.URL.Path == "/mcp"
}

// statusWriter records the status and size of a response for the log. It
// unwraps to the real writer, so http.ResponseController can flush event
// streams through it.
type statusWriter struct {
	http.ResponseWriter
	status int
	bytes  int64
}

func (w *statusWriter) WriteHeader(code int) {
	if w.status == 0 {
		w.status = code
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	n, err := w.ResponseWriter.Write(b)
	w.bytes += int64(n)
	return n, err
}

func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// Flush lets event streams flush through the wrapper.
func (w *statusWriter) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// logRequests logs one line per request. It logs the path without the query,
// which may hold the token.
func (s *Server) logRequests(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		sw := &statusWriter{ResponseWriter: w}
		next.ServeHTTP(sw, r)
		s.log.Info("request", "method", r.Method, "path", r.URL.Path, "status", sw.status,
			"bytes", sw.bytes, "ms", time.Since(start).Milliseconds(), "remote", r.RemoteAddr)
	})
}
