package web

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/bonsai-run/bonsai/internal/board"
)

// TestSharedBoard_Workers: on a board several machines share, the status
// (GET /api/status and the status page) lists every worker the registry
// knows, also one that holds nothing, with its last beat and its leases;
// one machine's board lists none.
func TestSharedBoard_Workers(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ctx := context.Background()
	tk := e.ticket(t, e.project(t, "demo").Slug, "Work", board.Research)
	for _, b := range []board.WorkerBeat{
		{ID: "idle:1", Host: "idle", Dir: "/d", PID: 1, Version: "v1.2.3", Kind: board.WorkerLoop},
		{ID: "busy:2", Host: "busy", Dir: "/d", PID: 2, Version: "v1.2.3", Kind: board.WorkerOneShot},
	} {
		if _, err := e.db.RecordBeat(ctx, b); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := e.db.AcquireLease(ctx, tk.Ref(), "busy:2", time.Minute, 0); err != nil {
		t.Fatal(err)
	}

	r := e.api(t, "GET", "/api/status", "")
	wantStatus(t, r, http.StatusOK)
	if strings.Contains(r.body, `"workers"`) {
		t.Errorf("one machine's board lists workers:\n%s", r.body)
	}
	e.srv.opts.SharedBoard = true
	r = e.api(t, "GET", "/api/status", "")
	wantStatus(t, r, http.StatusOK)
	wantBody(t, r, `"id": "idle:1"`, `"kind": "worker"`, `"lastBeat": "`, `"id": "busy:2"`, `"demo#1"`, `"worker": "busy:2"`)

	r = e.get(t, e.browser(t), "/settings")
	wantStatus(t, r, http.StatusOK)
	wantBody(t, r, `<table id="workers">`, "<td>idle:1</td><td>worker v1.2.3</td>", "<td>busy:2</td><td>heartbeat v1.2.3</td>",
		"<td>demo#1</td>", `<span class="muted">nothing</span>`)
}
