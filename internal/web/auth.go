package web

import (
	"crypto/hmac"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"net/http"
	"net/url"
	"strings"
)

// sessionCookie is the name of the cookie that proves a browser knows the
// web token.
const sessionCookie = "bonsai_session"

// csrfHeader and csrfField carry the CSRF token of a state-changing request
// made with the cookie: htmx and fetch send the header, plain forms the field.
const (
	csrfHeader = "X-CSRF-Token"
	csrfField  = "_csrf"
)

// auth holds the secrets derived from the web token. The cookie and the CSRF
// token are HMACs of the token, so neither reveals it and both change when
// the token file is replaced.
type auth struct {
	token   []byte
	session string // the cookie value
	csrf    string // the CSRF token
}

func newAuth(token string) auth {
	return auth{
		token:   []byte(token),
		session: derive(token, "bonsai web session v1"),
		csrf:    derive(token, "bonsai web csrf v1"),
	}
}

func derive(secret, purpose string) string {
	m := hmac.New(sha256.New, []byte(secret))
	m.Write([]byte(purpose))
	return hex.EncodeToString(m.Sum(nil))
}

// equal compares secrets in constant time.
func equal(a, b string) bool {
	return subtle.ConstantTimeCompare([]byte(a), []byte(b)) == 1
}

// validToken reports whether s is the web token.
func (a auth) validToken(s string) bool {
	return subtle.ConstantTimeCompare([]byte(strings.TrimSpace(s)), a.token) == 1
}

// how a request authenticated.
type authKind int

const (
	authNone   authKind = iota
	authCookie          // a browser: state changes need the CSRF token
	authBearer          // a script with Authorization: Bearer
)

func (a auth) check(r *http.Request) authKind {
	if h := r.Header.Get("Authorization"); h != "" {
		if tok, ok := strings.CutPrefix(h, "Bearer "); ok && a.validToken(tok) {
			return authBearer
		}
		return authNone
	}
	if c, err := r.Cookie(sessionCookie); err == nil && equal(c.Value, a.session) {
		return authCookie
	}
	return authNone
}

// validCSRF reports whether a cookie-authenticated request carries the CSRF
// token, in the header or in the form.
func (a auth) validCSRF(r *http.Request) bool {
	if h := r.Header.Get(csrfHeader); h != "" {
		return equal(h, a.csrf)
	}
	if strings.HasPrefix(r.Header.Get("Content-Type"), "application/x-www-form-urlencoded") ||
		strings.HasPrefix(r.Header.Get("Content-Type"), "multipart/form-data") {
		return equal(r.PostFormValue(csrfField), a.csrf)
	}
	return false
}

// setSession gives the browser the session cookie. It lasts 30 days; it is
// HttpOnly so scripts cannot read it, and SameSite=Strict so other sites
// cannot make the browser send it.
func (a auth) setSession(w http.ResponseWriter, r *http.Request) {
	http.SetCookie(w, &http.Cookie{
		Name: sessionCookie, Value: a.session, Path: "/", MaxAge: 30 * 24 * 3600,
		HttpOnly: true, SameSite: http.SameSiteStrictMode, Secure: r.TLS != nil,
	})
}

func clearSession(w http.ResponseWriter) {
	http.SetCookie(w, &http.Cookie{Name: sessionCookie, Value: "", Path: "/", MaxAge: -1,
		HttpOnly: true, SameSite: http.SameSiteStrictMode})
}

// safeMethod reports whether m never changes state.
func safeMethod(m string) bool {
	return m == http.MethodGet || m == http.MethodHead || m == http.MethodOptions
}

// localPath returns next when it is a path on this server, else "/", so a
// login link cannot send the browser elsewhere.
func localPath(next string) string {
	if next == "" || !strings.HasPrefix(next, "/") || strings.HasPrefix(next, "//") || strings.HasPrefix(next, "/\\") {
		return "/"
	}
	if u, err := url.Parse(next); err != nil || u.Host != "" || u.Scheme != "" {
		return "/"
	}
	return next
}

// withoutToken returns the request's URL without its token parameter.
func withoutToken(u *url.URL) string {
	q := u.Query()
	q.Del("token")
	out := url.URL{Path: u.Path, RawQuery: q.Encode()}
	return localPath(out.String())
}
