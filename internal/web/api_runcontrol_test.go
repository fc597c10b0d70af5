package web

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/bonsai-run/bonsai/internal/board"
)

// TestAPI_StopAndRunNow: a script stops a ticket's run and starts one
// with the bearer token, under the same checks as the ticket page's
// buttons: nothing running is 409, a ticket that cannot run is 422 with
// why, an unknown ticket 404; a browser's cookie alone, without the CSRF
// token, is refused.
func TestAPI_StopAndRunNow(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.project(t, "demo")
	tk := e.ticket(t, "demo", "Long work", board.InProgress)
	e.ticket(t, "demo", "Parked", board.Backlog)

	r := e.api(t, http.MethodPost, "/api/projects/demo/tickets/1/stop", "")
	wantStatus(t, r, http.StatusConflict)
	wantBody(t, r, `"code": "conflict"`, "nothing to stop")
	wantStatus(t, e.api(t, http.MethodPost, "/api/projects/demo/tickets/9/stop", ""), http.StatusNotFound)

	w := otherWriter(t, e)
	run, err := w.StartRun(context.Background(), board.Run{TicketID: tk.ID, Task: board.TaskImplement})
	if err != nil {
		t.Fatal(err)
	}
	// A cookie without the CSRF token may not stop it.
	c := e.browser(t)
	req, _ := http.NewRequest(http.MethodPost, e.ts.URL+"/api/projects/demo/tickets/1/stop", nil)
	wantStatus(t, send(t, c, req), http.StatusForbidden)
	if ctl, _ := w.RunControl(context.Background(), run.ID); ctl.StopRequestedAt != nil {
		t.Fatal("a cookie request without the CSRF token asked for a stop")
	}

	r = e.api(t, http.MethodPost, "/api/projects/demo/tickets/1/stop", "")
	wantStatus(t, r, http.StatusOK)
	var stopped runControlAnswer
	r.json(t, &stopped)
	if stopped.Run == nil || stopped.Run.ID != run.ID || stopped.Run.Ref != "demo#1" || !strings.Contains(stopped.Message, "stop") {
		t.Errorf("stop answered %s", r.body)
	}
	ctl, err := w.RunControl(context.Background(), run.ID)
	if err != nil || ctl.StopRequestedAt == nil || ctl.StopRequestedBy != "tester" {
		t.Errorf("RunControl = %+v, %v; want a stop asked by tester", ctl, err)
	}
	wantStatus(t, e.api(t, http.MethodPost, "/api/projects/demo/tickets/1/stop", `{"force":true}`), http.StatusBadRequest)

	// Run now: refused while the server cannot start beats, then as
	// Options.RunNow answers.
	r = e.api(t, http.MethodPost, "/api/projects/demo/tickets/2/run", "")
	wantStatus(t, r, http.StatusUnprocessableEntity)
	wantBody(t, r, "bonsai ticket run demo#2")
	var asked []string
	e.srv.opts.RunNow = func(ctx context.Context, ref board.Ref) (string, error) {
		asked = append(asked, ref.String())
		if ref.Number == 1 {
			return "demo#1: run 42 started (implement) by beat pid 7", nil
		}
		return "", board.Errorf(board.EREFUSED, "%s cannot run now: it is in BACKLOG", ref)
	}
	r = e.api(t, http.MethodPost, "/api/projects/demo/tickets/1/run", "")
	wantStatus(t, r, http.StatusAccepted)
	wantBody(t, r, `"message": "demo#1: run 42 started (implement) by beat pid 7"`)
	r = e.api(t, http.MethodPost, "/api/projects/demo/tickets/2/run", "")
	wantStatus(t, r, http.StatusUnprocessableEntity)
	wantBody(t, r, `"code": "refused"`, "demo#2 cannot run now: it is in BACKLOG")
	wantStatus(t, e.api(t, http.MethodPost, "/api/projects/demo/tickets/9/run", ""), http.StatusNotFound)
	if strings.Join(asked, ",") != "demo#1,demo#2" {
		t.Errorf("RunNow asked for %v, want demo#1 then demo#2", asked)
	}
}
