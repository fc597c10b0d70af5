package web

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
)

func TestAuth_RequiredEverywhere(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.project(t, "demo")
	e.ticket(t, "demo", "First", "BACKLOG")
	routes := []struct{ method, path string }{
		{"GET", "/"}, {"GET", "/p/demo"}, {"GET", "/p/demo/1"}, {"GET", "/p/demo/1/live"}, {"GET", "/settings"},
		{"GET", "/runs/x"}, {"GET", "/p/demo/events"}, {"GET", "/p/demo/1/events"},
		{"GET", "/p/demo/1/activity"}, {"GET", "/p/demo/1/diff"},
		{"POST", "/projects"}, {"POST", "/p/demo/tickets"}, {"POST", "/p/demo/1/move"}, {"POST", "/p/demo/1/comments"},
		{"POST", "/p/demo/1/approve"}, {"POST", "/p/demo/1/return"}, {"POST", "/p/demo/1/edit"}, {"POST", "/settings"},
		{"POST", "/p/demo/1/approvals/x"}, {"POST", "/api/projects/demo/tickets/1/approvals/x"},
		{"GET", "/api/projects"}, {"POST", "/api/projects"}, {"GET", "/api/projects/demo"},
		{"GET", "/api/projects/demo/tickets"}, {"POST", "/api/projects/demo/tickets"},
		{"GET", "/api/projects/demo/tickets/1"}, {"PATCH", "/api/projects/demo/tickets/1"},
		{"POST", "/api/projects/demo/tickets/1/move"}, {"POST", "/api/projects/demo/tickets/1/comments"},
		{"POST", "/api/projects/demo/tickets/1/approve"}, {"POST", "/api/projects/demo/tickets/1/return"},
		{"GET", "/api/status"}, {"GET", "/api/runs/x"}, {"GET", "/api/events"}, {"GET", "/api/events/stream"},
	}
	for _, rt := range routes {
		t.Run(rt.method+" "+rt.path, func(t *testing.T) {
			req, _ := http.NewRequest(rt.method, e.ts.URL+rt.path, strings.NewReader(`{"state":"RESEARCH"}`))
			req.Header.Set("Content-Type", "application/json")
			r := send(t, anon(), req)
			wantStatus(t, r, http.StatusUnauthorized)
			if strings.HasPrefix(rt.path, "/api/") {
				wantBody(t, r, `"code": "unauthorized"`)
			} else {
				wantBody(t, r, `action="/login"`)
			}
		})
	}
	// Nothing changed.
	r := e.api(t, "GET", "/api/projects/demo/tickets/1", "")
	wantBody(t, r, `"state": "BACKLOG"`)
}

func TestAuth_TokenLinkSetsStrictCookie(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	res, err := anon().Get(e.ts.URL + "/p/demo?q=x&token=" + e.token)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusSeeOther {
		t.Fatalf("status %d", res.StatusCode)
	}
	if loc := res.Header.Get("Location"); loc != "/p/demo?q=x" {
		t.Errorf("redirect to %q, want the URL without the token", loc)
	}
	cs := res.Cookies()
	if len(cs) != 1 {
		t.Fatalf("cookies %v", cs)
	}
	c := cs[0]
	if !c.HttpOnly || c.SameSite != http.SameSiteStrictMode || c.Path != "/" {
		t.Errorf("cookie %+v is not HttpOnly, SameSite=Strict, Path=/", c)
	}
	if strings.Contains(c.Value, e.token) {
		t.Error("the cookie holds the token itself")
	}
}

func TestAuth_WrongTokens(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	r := e.get(t, anon(), "/?token=nope")
	wantStatus(t, r, http.StatusUnauthorized)
	wantBody(t, r, "The token in that link is wrong")
	if strings.Contains(r.header.Get("Set-Cookie"), sessionCookie) {
		t.Error("a wrong token set the cookie")
	}

	req, _ := http.NewRequest("GET", e.ts.URL+"/api/projects", nil)
	req.Header.Set("Authorization", "Bearer "+e.token+"x")
	wantStatus(t, send(t, anon(), req), http.StatusUnauthorized)

	req, _ = http.NewRequest("GET", e.ts.URL+"/", nil)
	req.AddCookie(&http.Cookie{Name: sessionCookie, Value: e.token})
	wantStatus(t, send(t, anon(), req), http.StatusUnauthorized)
}

func TestAuth_TokenLinkIsForPagesOnly(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	r := e.get(t, anon(), "/api/projects?token="+e.token)
	wantStatus(t, r, http.StatusUnauthorized)
	wantBody(t, r, "Authorization: Bearer")
}

func TestAuth_LoginForm(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	post := func(token, next string) response {
		req, _ := http.NewRequest("POST", e.ts.URL+"/login", strings.NewReader(url.Values{"token": {token}, "next": {next}}.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		return send(t, anon(), req)
	}
	r := post("wrong", "/settings")
	wantStatus(t, r, http.StatusUnauthorized)
	wantBody(t, r, "That token is wrong", `value="/settings"`)

	r = post(e.token, "/settings")
	wantStatus(t, r, http.StatusSeeOther)
	if r.header.Get("Location") != "/settings" {
		t.Errorf("Location %q", r.header.Get("Location"))
	}
	if !strings.Contains(r.header.Get("Set-Cookie"), "HttpOnly") || !strings.Contains(r.header.Get("Set-Cookie"), "SameSite=Strict") {
		t.Errorf("Set-Cookie %q", r.header.Get("Set-Cookie"))
	}
	// An open redirect is refused.
	for _, next := range []string{"https://evil.example", "//evil.example", "/\\evil.example"} {
		r = post(e.token, next)
		if r.header.Get("Location") != "/" {
			t.Errorf("next %q redirected to %q", next, r.header.Get("Location"))
		}
	}
}

func TestAuth_CSRF(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.project(t, "demo")
	e.ticket(t, "demo", "First", "BACKLOG")
	c := e.browser(t)
	move := func(header map[string]string, form url.Values) response {
		body := `{"state":"RESEARCH"}`
		ct := "application/json"
		if form != nil {
			body, ct = form.Encode(), "application/x-www-form-urlencoded"
		}
		req, _ := http.NewRequest("POST", e.ts.URL+"/api/projects/demo/tickets/1/move", strings.NewReader(body))
		req.Header.Set("Content-Type", ct)
		for k, v := range header {
			req.Header.Set(k, v)
		}
		return send(t, c, req)
	}
	tests := []struct {
		name   string
		header map[string]string
		want   int
	}{
		{"no token", nil, http.StatusForbidden},
		{"wrong token", map[string]string{csrfHeader: "0000"}, http.StatusForbidden},
		{"other origin", map[string]string{csrfHeader: e.srv.auth.csrf, "Origin": "https://evil.example"}, http.StatusForbidden},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := move(tt.header, nil)
			wantStatus(t, r, tt.want)
			wantBody(t, r, `"code": "csrf"`)
		})
	}
	wantStatus(t, e.api(t, "GET", "/api/projects/demo/tickets/1", ""), 200)
	if r := e.api(t, "GET", "/api/projects/demo/tickets/1", ""); !strings.Contains(r.body, `"state": "BACKLOG"`) {
		t.Fatal("a refused request changed the ticket")
	}
	// The header (htmx, fetch) and the form field (plain forms) both work.
	wantStatus(t, move(map[string]string{csrfHeader: e.srv.auth.csrf, "Origin": e.ts.URL}, nil), http.StatusOK)
	r := e.post(t, c, "/p/demo/1/comments", url.Values{"content": {"hello"}})
	wantStatus(t, r, http.StatusSeeOther)
	// Page forms without the field are refused.
	req, _ := http.NewRequest("POST", e.ts.URL+"/p/demo/1/comments", strings.NewReader("content=sneaky"))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	wantStatus(t, send(t, c, req), http.StatusForbidden)
}

func TestAuth_BearerNeedsNoCSRF(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.project(t, "demo")
	r := e.api(t, "POST", "/api/projects/demo/tickets", `{"title":"From a script"}`)
	wantStatus(t, r, http.StatusCreated)
}

func TestAuth_LoopbackHostOnly(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	req, _ := http.NewRequest("GET", e.ts.URL+"/login", nil)
	req.Host = "evil.example"
	r := send(t, anon(), req)
	wantStatus(t, r, http.StatusMisdirectedRequest)
	for _, h := range []string{"localhost:7373", "127.0.0.1", "[::1]:80", "app.localhost"} {
		if !loopbackHost(h) {
			t.Errorf("loopbackHost(%q) = false", h)
		}
	}
}

func TestAuth_Logout(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	c := e.browser(t)
	r := e.post(t, c, "/logout", nil)
	wantStatus(t, r, http.StatusSeeOther)
	wantStatus(t, e.get(t, c, "/"), http.StatusUnauthorized)
}

func TestAuth_CSRFOnEveryStateChange(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.project(t, "demo")
	e.ticket(t, "demo", "First", "BACKLOG")
	c := e.browser(t)
	for _, rt := range []struct{ method, path, ct, body string }{
		{"POST", "/logout", "application/x-www-form-urlencoded", ""},
		{"POST", "/projects", "application/x-www-form-urlencoded", "slug=x&repo=https://example.com/x.git"},
		{"POST", "/p/demo/tickets", "application/x-www-form-urlencoded", "title=x"},
		{"POST", "/p/demo/1/move", "application/x-www-form-urlencoded", "state=RESEARCH"},
		{"POST", "/p/demo/1/comments", "application/x-www-form-urlencoded", "content=x"},
		{"POST", "/p/demo/1/approve", "application/x-www-form-urlencoded", ""},
		{"POST", "/p/demo/1/return", "application/x-www-form-urlencoded", "feedback=x"},
		{"POST", "/p/demo/1/edit", "application/x-www-form-urlencoded", "title=x"},
		{"POST", "/p/demo/1/approvals/x", "application/x-www-form-urlencoded", "decision=once"},
		{"POST", "/settings", "application/x-www-form-urlencoded", "model=openai/gpt-5"},
		{"POST", "/api/projects", "application/json", `{"slug":"x","repo":"https://example.com/x.git"}`},
		{"POST", "/api/projects/demo/tickets", "application/json", `{"title":"x"}`},
		{"PATCH", "/api/projects/demo/tickets/1", "application/json", `{"title":"x"}`},
		{"POST", "/api/projects/demo/tickets/1/move", "application/json", `{"state":"RESEARCH"}`},
		{"POST", "/api/projects/demo/tickets/1/comments", "application/json", `{"content":"x"}`},
		{"POST", "/api/projects/demo/tickets/1/approve", "application/json", `{}`},
		{"POST", "/api/projects/demo/tickets/1/return", "application/json", `{"feedback":"x"}`},
		{"POST", "/api/projects/demo/tickets/1/approvals/x", "application/json", `{"decision":"once"}`},
	} {
		t.Run(rt.method+" "+rt.path, func(t *testing.T) {
			req, _ := http.NewRequest(rt.method, e.ts.URL+rt.path, strings.NewReader(rt.body))
			req.Header.Set("Content-Type", rt.ct)
			wantStatus(t, send(t, c, req), http.StatusForbidden)
		})
	}
	r := e.api(t, "GET", "/api/projects/demo/tickets/1", "")
	wantBody(t, r, `"title": "First"`, `"state": "BACKLOG"`, `"comments": []`)
	if r := e.api(t, "GET", "/api/projects", ""); strings.Contains(r.body, `"slug": "x"`) {
		t.Fatal("a request without the CSRF token created a project")
	}
}
