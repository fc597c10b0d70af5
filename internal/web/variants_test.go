package web

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/bonsai-run/bonsai/internal/board"
)

// fakeVariants records the best of N the API asks for.
type fakeVariants struct {
	ran      [][]board.VariantSpec
	returned []string
}

func (f *fakeVariants) Run(ctx context.Context, ref board.Ref, specs []board.VariantSpec) (string, error) {
	f.ran = append(f.ran, specs)
	return ref.String() + " runs as variants", nil
}

func (f *fakeVariants) Return(ctx context.Context, ref board.Ref, n int, author, feedback string) (board.Ticket, error) {
	f.returned = append(f.returned, author+": "+feedback)
	return board.Ticket{ProjectSlug: ref.Project, Number: ref.Number, State: board.InProgress}, nil
}

// TestAPI_Variants: the variants as JSON; a malformed spec is a 400 and
// starts nothing; a server that cannot start beats refuses; approving
// the ticket itself is refused while its variants are in flight, and
// approving variant 3 through the API lands it.
func TestAPI_Variants(t *testing.T) {
	t.Parallel()
	work := []variantWork{{"a.txt", "a", board.Usage{InputTokens: 10}, 1}, {"b.txt", "b", board.Usage{InputTokens: 20}, 2},
		{"c.txt", "c", board.Usage{InputTokens: 30}, 3}}
	e, repo, _, vs := variantsEnv(t, work)
	r := e.api(t, "GET", "/api/projects/demo/tickets/1/variants", "")
	wantStatus(t, r, http.StatusOK)
	wantBody(t, r, `"ref": "demo#2"`, `"engine": "claude-code"`, `"model": "fake/two"`, `"ticketState": "VERIFICATION"`, `"inputTokens": 30`, `"turns": 3`, `"evidence": "Ready for review.`)
	r = e.api(t, "GET", "/api/projects/demo/tickets/2/variants", "")
	wantBody(t, r, `"ticket": "demo#1"`)

	// The board shows the ticket once, with its variants' badge, and no
	// card of a variant.
	c := e.browser(t)
	r = e.get(t, c, "/p/demo")
	wantBody(t, r, `data-number="1"`, `<span class="badge variants" title="run N ways: compare them on the ticket's page">3 variants</span>`)
	if strings.Contains(r.body, "[variant ") || strings.Contains(r.body, `data-number="2"`) {
		t.Errorf("the board shows a variant's card")
	}

	r = e.api(t, "POST", "/api/projects/demo/tickets/1/variants", `{"variants":["bonsai:fake/one","gpt-5"]}`)
	wantStatus(t, r, http.StatusBadRequest)
	wantBody(t, r, `is not engine:model`)
	r = e.api(t, "POST", "/api/projects/demo/tickets/1/variants", `{"variants":["bonsai:fake/one","bonsai:fake/two"]}`)
	wantStatus(t, r, http.StatusUnprocessableEntity)
	wantBody(t, r, "this server cannot start beats")
	f := &fakeVariants{}
	e.srv.opts.Variants = f
	r = e.api(t, "POST", "/api/projects/demo/tickets/1/variants", `{"variants":["bonsai:fake/one","codex:fake/two"]}`)
	wantStatus(t, r, http.StatusAccepted)
	if len(f.ran) != 1 || f.ran[0][1] != (board.VariantSpec{Engine: board.EngineCodex, Model: "fake/two"}) {
		t.Errorf("Run got %+v", f.ran)
	}

	r = e.api(t, "POST", "/api/projects/demo/tickets/1/approve", "")
	wantStatus(t, r, http.StatusUnprocessableEntity)
	wantBody(t, r, "approve one of them (demo#2, demo#3, demo#4)")
	r = e.api(t, "POST", "/api/projects/demo/tickets/1/return", `{"feedback":"redo it"}`)
	wantStatus(t, r, http.StatusUnprocessableEntity)
	wantBody(t, r, "demo#1 runs as 3 variants; choose one first")
	r = e.api(t, "POST", "/api/projects/demo/tickets/1/move", `{"state":"BACKLOG"}`)
	wantStatus(t, r, http.StatusUnprocessableEntity)
	r = e.api(t, "POST", "/api/projects/demo/tickets/1/variants/2/return", `{}`)
	wantStatus(t, r, http.StatusBadRequest)
	wantBody(t, r, "needs feedback")
	r = e.api(t, "POST", "/api/projects/demo/tickets/1/variants/9/approve", "")
	wantStatus(t, r, http.StatusNotFound)
	r = e.api(t, "POST", "/api/projects/demo/tickets/1/variants/3/approve", "")
	wantStatus(t, r, http.StatusOK)
	wantBody(t, r, `"state": "DONE"`)
	if files := gitFiles(t, repo); !strings.Contains(files, "c.txt") || strings.Contains(files, "a.txt") || strings.Contains(files, "b.txt") {
		t.Errorf("main has %q, want variant 3's c.txt only", files)
	}
	r = e.api(t, "POST", "/api/projects/demo/tickets/1/variants/1/return", `{"feedback":"too late"}`)
	wantStatus(t, r, http.StatusUnprocessableEntity)
	if len(f.returned) != 0 || vs[2].Number != 3 {
		t.Errorf("returned %q after the approval", f.returned)
	}
}

// TestVariants_RunNWaysForm: the ticket page offers Run N ways for a
// ticket in IN_PROGRESS when the server can start beats; a malformed spec
// comes back on the page with the reason and starts nothing; a good one
// goes to the comparison.
func TestVariants_RunNWaysForm(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.project(t, "demo")
	e.ticket(t, "demo", "Greet", board.InProgress)
	c := e.browser(t)
	if r := e.get(t, c, "/p/demo/1"); strings.Contains(r.body, `id="run-variants"`) {
		t.Errorf("the form shows on a server that cannot start beats")
	}
	f := &fakeVariants{}
	e.srv.opts.Variants = f
	e.srv.opts.RunNow = func(context.Context, board.Ref) (string, error) { return "started", nil }
	wantBody(t, e.get(t, c, "/p/demo/1"), `id="run-variants"`)
	r := e.post(t, c, "/p/demo/1/variants", url.Values{"variants": {"bonsai:fake/one"}})
	wantStatus(t, r, http.StatusBadRequest)
	wantBody(t, r, `id="run-error"`, "give 2 to 5 variants, not 1")
	r = e.post(t, c, "/p/demo/1/variants", url.Values{"variants": {"bonsai:fake/one,codex:fake/two"}})
	if len(f.ran) != 1 || len(f.ran[0]) != 2 || r.status != http.StatusSeeOther || r.header.Get("Location") != "/p/demo/1/variants" {
		t.Errorf("Run got %+v; answer %d to %q", f.ran, r.status, r.header.Get("Location"))
	}
}
