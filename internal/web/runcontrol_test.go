package web

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/bonsai-run/bonsai/internal/board"
)

// TestRunControls_Stop: the ticket page offers Stop while a run (started
// by another process) runs; the form writes the stop request the beat
// polls, and a stop with nothing running is refused with why.
func TestRunControls_Stop(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.project(t, "demo")
	tk := e.ticket(t, "demo", "Long work", board.InProgress)
	c := e.browser(t)

	r := e.post(t, c, "/p/demo/1/stop", nil)
	wantStatus(t, r, http.StatusConflict)
	wantBody(t, r, `id="run-error"`, "has never run; there is nothing to stop")

	w := otherWriter(t, e)
	run, err := w.StartRun(context.Background(), board.Run{TicketID: tk.ID, Task: board.TaskImplement})
	if err != nil {
		t.Fatal(err)
	}
	page := e.get(t, c, "/p/demo/1")
	wantBody(t, page, `id="stop-run"`)
	wantStatus(t, e.post(t, c, "/p/demo/1/stop", nil), http.StatusSeeOther)
	ctl, err := w.RunControl(context.Background(), run.ID)
	if err != nil {
		t.Fatal(err)
	}
	if ctl.StopRequestedAt == nil || ctl.StopRequestedBy != "tester" {
		t.Errorf("RunControl = %+v, want a stop asked by tester", ctl)
	}
}

// TestRunControls_RunNow: Run now shows on a ticket an agent may work on
// when the server can start beats, calls Options.RunNow, and shows its
// refusal next to the button.
func TestRunControls_RunNow(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.project(t, "demo")
	e.ticket(t, "demo", "Ready", board.Research)
	e.ticket(t, "demo", "Parked", board.Backlog)
	c := e.browser(t)
	if strings.Contains(e.get(t, c, "/p/demo/1").body, `id="run-now"`) {
		t.Error("Run now shows on a server that cannot start beats")
	}
	var asked []board.Ref
	e.srv.opts.RunNow = func(ctx context.Context, ref board.Ref) (string, error) {
		asked = append(asked, ref)
		if ref.Number == 1 {
			return "started", nil
		}
		return "", board.Errorf(board.EREFUSED, "%s cannot run now: it is in BACKLOG", ref)
	}
	wantBody(t, e.get(t, c, "/p/demo/1"), `id="run-now"`)
	if strings.Contains(e.get(t, c, "/p/demo/2").body, `id="run-now"`) {
		t.Error("Run now shows on a BACKLOG ticket of a project that does not take its backlog")
	}
	wantStatus(t, e.post(t, c, "/p/demo/1/run", nil), http.StatusSeeOther)
	r := e.post(t, c, "/p/demo/2/run", nil)
	wantBody(t, r, `id="run-error"`, "demo#2 cannot run now: it is in BACKLOG")
	if len(asked) != 2 || asked[0].String() != "demo#1" || asked[1].String() != "demo#2" {
		t.Errorf("RunNow asked for %v, want demo#1 then demo#2", asked)
	}
}
