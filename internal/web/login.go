package web

import "net/http"

type loginView struct {
	Next  string
	Error string
}

// renderLogin shows the login form.
func (s *Server) renderLogin(w http.ResponseWriter, r *http.Request, status int, next, msg string) {
	s.render(w, r, status, "login", pageData{Title: "Log in", NoNav: true, Data: loginView{Next: localPath(next), Error: msg}})
}

func (s *Server) loginPage(w http.ResponseWriter, r *http.Request) error {
	if s.auth.check(r) != authNone {
		http.Redirect(w, r, localPath(r.URL.Query().Get("next")), http.StatusSeeOther)
		return nil
	}
	s.renderLogin(w, r, http.StatusOK, r.URL.Query().Get("next"), "")
	return nil
}

// login checks the pasted token and sets the session cookie. The form needs
// no CSRF token (the visitor has no session yet), but it must come from this
// origin.
func (s *Server) login(w http.ResponseWriter, r *http.Request) error {
	if err := r.ParseForm(); err != nil {
		return bodyError(err)
	}
	if err := s.checkOrigin(r); err != nil {
		return err
	}
	next := r.PostFormValue("next")
	if !s.auth.validToken(r.PostFormValue("token")) {
		s.renderLogin(w, r, http.StatusUnauthorized, next,
			"That token is wrong. It is the content of the web-token file in the data directory.")
		return nil
	}
	s.auth.setSession(w, r)
	http.Redirect(w, r, localPath(next), http.StatusSeeOther)
	return nil
}

func (s *Server) logout(w http.ResponseWriter, r *http.Request) error {
	clearSession(w)
	http.Redirect(w, r, "/login", http.StatusSeeOther)
	return nil
}

// checkOrigin refuses a request another site made the browser send.
func (s *Server) checkOrigin(r *http.Request) error {
	if r.Header.Get("Sec-Fetch-Site") == "cross-site" {
		return &httpError{status: http.StatusForbidden, code: "csrf", msg: "cross-site request refused"}
	}
	return nil
}
