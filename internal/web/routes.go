package web

import (
	"io/fs"
	"net/http"
)

// routes declares every route of the server. Authentication, CSRF and the
// body limit are applied around all of them in middleware.go.
func (s *Server) routes() http.Handler {
	mux := http.NewServeMux()
	h := s.handle

	// Login and assets (no authentication).
	mux.Handle("GET /login", h(s.loginPage))
	mux.Handle("POST /login", h(s.login))
	mux.Handle("GET /healthz", h(s.healthz))
	mux.Handle("POST /hooks/{name}", h(s.hookDelivery)) // the hook's secret proves the sender
	static, _ := fs.Sub(staticFS, "static")
	mux.Handle("GET /static/", http.StripPrefix("/static/", cacheForever(http.FileServerFS(static))))

	// Pages.
	mux.Handle("POST /logout", h(s.logout))
	mux.Handle("GET /{$}", h(s.projectsPage))
	mux.Handle("POST /projects", h(s.addProject))
	mux.Handle("GET /p/{slug}", h(s.boardPage))
	mux.Handle("GET /p/{slug}/events", h(s.boardEvents))
	mux.Handle("GET /p/{slug}/settings", h(s.projectSettingsPage))
	mux.Handle("POST /p/{slug}/settings", h(s.saveProjectSettings))
	mux.Handle("POST /p/{slug}/archive", h(s.archiveForm))
	mux.Handle("POST /p/{slug}/unarchive", h(s.unarchiveForm))
	mux.Handle("POST /p/{slug}/tickets", h(s.quickAdd))
	mux.Handle("GET /p/{slug}/schedules", h(s.schedulesPage))
	mux.Handle("GET /p/{slug}/insights", h(s.projectInsightsPage))
	mux.Handle("POST /p/{slug}/schedules", h(s.scheduleForms))
	mux.Handle("GET /p/{slug}/{n}", h(s.ticketPage))
	mux.Handle("GET /p/{slug}/{n}/live", h(s.ticketLive))
	mux.Handle("GET /p/{slug}/{n}/events", h(s.ticketEvents))
	mux.Handle("GET /p/{slug}/{n}/activity", h(s.ticketActivity))
	mux.Handle("GET /p/{slug}/{n}/diff", h(s.ticketDiff))
	mux.Handle("GET /p/{slug}/{n}/attachments/{id}", h(s.attachment))
	mux.Handle("POST /p/{slug}/{n}/edit", h(s.editForm))
	mux.Handle("POST /p/{slug}/{n}/move", h(s.moveForm))
	mux.Handle("POST /p/{slug}/{n}/reopen", h(s.reopenForm))
	mux.Handle("POST /p/{slug}/{n}/comments", h(s.commentForm))
	mux.Handle("POST /p/{slug}/{n}/approve", h(s.approveForm))
	mux.Handle("POST /p/{slug}/{n}/return", h(s.returnForm))
	mux.Handle("POST /p/{slug}/{n}/links", h(s.linkForm))
	mux.Handle("GET /settings/notifications", h(s.notificationsPage))
	mux.Handle("POST /settings/notifications", h(s.addChannel))
	mux.Handle("POST /settings/notifications/{name}/test", h(s.testChannel))
	mux.Handle("POST /settings/notifications/{name}/remove", h(s.removeChannel))
	mux.Handle("GET /settings/hooks", h(s.hooksPage))
	mux.Handle("POST /settings/hooks", h(s.addHook))
	mux.Handle("POST /settings/hooks/{name}/remove", h(s.removeHook))
	mux.Handle("POST /p/{slug}/{n}/approvals/{id}", h(s.approvalForm))
	mux.Handle("POST /p/{slug}/{n}/stop", h(s.stopForm))
	mux.Handle("POST /p/{slug}/{n}/run", h(s.runNowForm))
	mux.Handle("GET /p/{slug}/{n}/variants", h(s.variantsPage))
	mux.Handle("POST /p/{slug}/{n}/variants", h(s.variantsForm))
	mux.Handle("POST /p/{slug}/{n}/variants/{v}/{action}", h(s.variantChoiceForm))
	mux.Handle("GET /runs/{id}", h(s.runPage))
	mux.Handle("GET /insights", h(s.insightsPage))
	mux.Handle("GET /settings", h(s.settingsPage))
	mux.Handle("POST /settings", h(s.saveSettings))

	// JSON API (docs/api.md). These routes are a contract.
	mux.Handle("GET /api/projects", h(s.apiProjects))
	mux.Handle("POST /api/projects", h(s.apiCreateProject))
	mux.Handle("GET /api/projects/{slug}", h(s.apiProject))
	mux.Handle("PATCH /api/projects/{slug}", h(s.apiEditProject))
	mux.Handle("POST /api/projects/{slug}/archive", h(s.apiArchiveProject))
	mux.Handle("POST /api/projects/{slug}/unarchive", h(s.apiUnarchiveProject))
	mux.Handle("GET /api/projects/{slug}/tickets", h(s.apiTickets))
	mux.Handle("POST /api/projects/{slug}/tickets", h(s.apiCreateTicket))
	mux.Handle("GET /api/projects/{slug}/tickets/{n}", h(s.apiTicket))
	mux.Handle("PATCH /api/projects/{slug}/tickets/{n}", h(s.apiEditTicket))
	mux.Handle("POST /api/projects/{slug}/tickets/{n}/move", h(s.apiMove))
	mux.Handle("POST /api/projects/{slug}/tickets/{n}/reopen", h(s.apiReopen))
	mux.Handle("POST /api/projects/{slug}/tickets/{n}/comments", h(s.apiComment))
	mux.Handle("GET /api/projects/{slug}/tickets/{n}/attachments/{id}", h(s.attachment))
	mux.Handle("POST /api/projects/{slug}/tickets/{n}/approve", h(s.apiApprove))
	mux.Handle("POST /api/projects/{slug}/tickets/{n}/return", h(s.apiReturn))
	mux.Handle("POST /api/projects/{slug}/tickets/{n}/approvals/{id}", h(s.apiDecideApproval))
	mux.Handle("POST /api/projects/{slug}/tickets/{n}/stop", h(s.apiStop))
	mux.Handle("POST /api/projects/{slug}/tickets/{n}/run", h(s.apiRunNow))
	mux.Handle("GET /api/projects/{slug}/tickets/{n}/variants", h(s.apiVariants))
	mux.Handle("POST /api/projects/{slug}/tickets/{n}/variants", h(s.apiCreateVariants))
	mux.Handle("POST /api/projects/{slug}/tickets/{n}/variants/{v}/{action}", h(s.apiChooseVariant))
	mux.Handle("POST /api/projects/{slug}/tickets/{n}/links", h(s.apiLink))
	mux.Handle("DELETE /api/projects/{slug}/tickets/{n}/links/{kind}/{other}", h(s.apiUnlink))
	mux.Handle("GET /api/projects/{slug}/schedules", h(s.apiSchedules))
	mux.Handle("POST /api/projects/{slug}/schedules", h(s.apiCreateSchedule))
	mux.Handle("GET /api/projects/{slug}/schedules/{name}", h(s.apiSchedule))
	mux.Handle("PATCH /api/projects/{slug}/schedules/{name}", h(s.apiEditSchedule))
	mux.Handle("DELETE /api/projects/{slug}/schedules/{name}", h(s.apiDeleteSchedule))
	mux.Handle("POST /api/projects/{slug}/schedules/{name}/pause", h(s.apiPauseSchedule(true)))
	mux.Handle("POST /api/projects/{slug}/schedules/{name}/resume", h(s.apiPauseSchedule(false)))
	mux.Handle("POST /api/projects/{slug}/schedules/{name}/fire", h(s.apiFireSchedule))
	mux.Handle("GET /api/status", h(s.apiStatus))
	mux.Handle("GET /api/stats", h(s.apiStats))
	mux.Handle("GET /api/runs/{id}", h(s.apiRun))
	mux.Handle("GET /api/events", h(s.apiEvents))
	mux.Handle("GET /api/events/stream", h(s.apiEventStream))
	mux.Handle("/api/", h(s.apiNotFound))
	mux.Handle("/mcp", h(s.mcp))

	mux.Handle("/", h(s.notFound))
	return mux
}

// cacheForever marks assets immutable: their URLs carry assetVersion.
func cacheForever(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Query().Get("v") != "" {
			w.Header().Set("Cache-Control", "public, max-age=31536000, immutable")
		}
		next.ServeHTTP(w, r)
	})
}

func (s *Server) healthz(w http.ResponseWriter, r *http.Request) error {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	_, err := w.Write([]byte("ok\n"))
	return err
}

func (s *Server) notFound(w http.ResponseWriter, r *http.Request) error {
	return &httpError{status: http.StatusNotFound, code: "not_found", msg: "there is no page at " + r.URL.Path}
}

func (s *Server) apiNotFound(w http.ResponseWriter, r *http.Request) error {
	return &httpError{status: http.StatusNotFound, code: "not_found",
		msg: r.Method + " " + r.URL.Path + " is not an API route; see docs/api.md"}
}

// mcp hands /mcp to the MCP handler. Only a client with the token as a
// Bearer token reaches it: a browser's cookie is not enough, so a page
// cannot drive the board through it.
func (s *Server) mcp(w http.ResponseWriter, r *http.Request) error {
	if s.opts.MCP == nil {
		return &httpError{status: http.StatusNotFound, code: "not_found", msg: "this server does not serve MCP"}
	}
	if s.auth.check(r) != authBearer {
		w.Header().Set("WWW-Authenticate", `Bearer realm="bonsai"`)
		return &httpError{status: http.StatusUnauthorized, code: "unauthorized",
			msg: "MCP clients authenticate with Authorization: Bearer <web-token>"}
	}
	s.opts.MCP.ServeHTTP(w, r)
	return nil
}
