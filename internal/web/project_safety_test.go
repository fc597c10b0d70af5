package web

import (
	"context"
	"errors"
	"html"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/bonsai-run/bonsai/internal/board"
	"github.com/bonsai-run/bonsai/internal/view"
)

func TestPages_ProjectSafetySaves(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	p := e.project(t, "demo")
	c := e.browser(t)
	ctx := context.Background()

	// The page shows the defaults: auto, required, proxy, empty lists.
	r := e.get(t, c, "/p/demo/settings")
	wantBody(t, r, `name="permissionMode" value="auto" checked`, `name="sandbox" value="required" checked`,
		`name="network" value="proxy" checked`, `<label for="ps-allow">Allow</label>`, `<label for="ps-ask">Ask</label>`,
		`<label for="ps-allowHosts">Allowed hosts</label>`, `aria-labelledby="ps-permissionMode-label"`)

	form := settingsForm(p)
	form.Set("permissionMode", "ask")
	form.Set("allow", "go test *\r\n\r\n  npm run test:*  \r\n")
	form.Set("ask", "git push *")
	form.Set("sandbox", "off")
	form.Set("network", "none")
	form.Set("allowHosts", "api.example.com\n*.corp.example:8443")
	r = e.post(t, c, "/p/demo/settings", form)
	wantStatus(t, r, http.StatusSeeOther)
	got, _ := e.db.Project(ctx, "demo")
	a := got.Agent
	if a.PermissionMode != board.ModeAsk || !slices.Equal(a.Allow, []string{"go test *", "npm run test:*"}) ||
		!slices.Equal(a.Ask, []string{"git push *"}) || a.Sandbox != board.SandboxOff || a.Network != board.NetworkNone ||
		!slices.Equal(a.AllowHosts, []string{"api.example.com", "*.corp.example:8443"}) {
		t.Fatalf("after save %+v", a)
	}
	fields, n := updatedFields(t, e)
	if want := []string{"permissionMode", "allow", "ask", "sandbox", "network", "allowHosts"}; n != 1 || !slices.Equal(fields, want) {
		t.Fatalf("%d update events, fields %v, want 1 with %v", n, fields, want)
	}
	r = e.get(t, c, loc(r))
	wantBody(t, r, "Saved.", `name="permissionMode" value="ask" checked`, `name="sandbox" value="off" checked`,
		`name="network" value="none" checked`, ">\ngo test *\nnpm run test:*</textarea>", ">\ngit push *</textarea>",
		">\napi.example.com\n*.corp.example:8443</textarea>")

	// The same form again writes nothing.
	wantStatus(t, e.post(t, c, "/p/demo/settings", settingsForm(got)), http.StatusSeeOther)
	if _, m := updatedFields(t, e); m != n {
		t.Fatalf("an unchanged form wrote %d more events", m-n)
	}

	// An empty textarea clears its list; the others are kept.
	form = settingsForm(got)
	form.Set("allow", "")
	form.Set("allowHosts", "\r\n  \r\n")
	wantStatus(t, e.post(t, c, "/p/demo/settings", form), http.StatusSeeOther)
	got, _ = e.db.Project(ctx, "demo")
	if got.Agent.Allow != nil || got.Agent.AllowHosts != nil || !slices.Equal(got.Agent.Ask, []string{"git push *"}) {
		t.Fatalf("after clearing %+v", got.Agent)
	}
	if fields, _ := updatedFields(t, e); !slices.Equal(fields, []string{"allow", "allowHosts"}) {
		t.Fatalf("clearing wrote %v", fields)
	}

	// Each mode, and plan as the old "approve plans" box meant it.
	for _, m := range []board.PermissionMode{board.ModePlan, board.ModeReadOnly, board.ModeAuto} {
		form = settingsForm(got)
		form.Set("permissionMode", m.String())
		wantStatus(t, e.post(t, c, "/p/demo/settings", form), http.StatusSeeOther)
		if got, _ = e.db.Project(ctx, "demo"); got.Agent.PermissionMode != m {
			t.Fatalf("mode %q saved as %q", m, got.Agent.PermissionMode)
		}
	}
	if !board.ModePlan.PersonApprovesPlans() {
		t.Fatal("plan no longer means a person approves each plan")
	}

	// A form without the new fields (an old page) keeps them.
	form = settingsForm(got)
	for _, f := range []string{"permissionMode", "allow", "ask", "sandbox", "network", "allowHosts"} {
		form.Del(f)
	}
	form.Set("verify", "make test")
	wantStatus(t, e.post(t, c, "/p/demo/settings", form), http.StatusSeeOther)
	after, _ := e.db.Project(ctx, "demo")
	if after.Agent.Verify != "make test" || after.Agent.Sandbox != board.SandboxOff || !slices.Equal(after.Agent.Ask, got.Agent.Ask) {
		t.Fatalf("a form without the safety fields changed them: %+v", after.Agent)
	}
}

func TestPages_ProjectSafetyErrorsKeepTyped(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ctx := context.Background()
	p, err := e.db.CreateProject(ctx, board.Project{Slug: "demo", Name: "Demo", Repo: t.TempDir(), DefaultBranch: "main",
		Active: true, Agent: board.AgentSettings{Allow: []string{"make *"}, AllowHosts: []string{"api.example.com"}}})
	if err != nil {
		t.Fatal(err)
	}
	c := e.browser(t)
	tooMany := strings.Repeat("make x\n", 201)
	for _, tt := range []struct {
		name, field, value string
		want               []string
	}{
		{"pipe", "allow", "go test *\ngit push | tee x", []string{`allow, line 2: pattern "git push | tee x": must be one simple command`}},
		{"quotes", "allow", `echo "unbalanced`, []string{`allow, line 1: pattern "echo \"unbalanced": unbalanced quotes or brackets`}},
		{"several", "ask", "$CMD\n\nmake > out\ngit push *\na=b make",
			[]string{`ask, line 1: pattern "$CMD": words must be literal`, `ask, line 3: pattern "make > out": must be one simple command`,
				`ask, line 5: pattern "a=b make": must not assign variables`}},
		{"glob program", "ask", "su?o x", []string{`the program name must be literal`}},
		{"too many", "allow", tooMany, []string{"201 allow patterns; the limit is 200"}},
		{"control", "allow", "make\x01 x", []string{"contains a control character"}},
		{"url", "allowHosts", "ok.example.com\nhttps://example.com/x", []string{`allowHosts, line 2: allowed host "https://example.com/x": give the host only`}},
		{"port", "allowHosts", "example.com:99999", []string{"the port must be a number from 1 to 65535"}},
		{"mode", "permissionMode", "yolo", []string{`permission mode "yolo"; use auto`}},
		{"sandbox", "sandbox", "maybe", []string{`sandbox "maybe"; use required`}},
		{"network", "network", "wifi", []string{`network "wifi"; use proxy`}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			form := settingsForm(p)
			form.Set("verify", "kept <typed> text") // a valid change beside the bad one
			form.Set("ask", "git push *")           // and another
			form.Set(tt.field, tt.value)
			r := e.post(t, c, "/p/demo/settings", form)
			wantStatus(t, r, http.StatusBadRequest)
			wantBody(t, r, `name="verify" value="kept &lt;typed&gt; text"`)
			for _, w := range tt.want {
				wantBody(t, r, html.EscapeString(w))
			}
			// The error sits next to its field: after its input, before the next field.
			in := strings.Index(r.body, `name="`+tt.field+`"`)
			msg := strings.Index(r.body, html.EscapeString(tt.want[0]))
			next := strings.Index(r.body[in:], "<label for=")
			if in < 0 || msg < in || (next >= 0 && msg > in+next) {
				t.Errorf("the error is not next to %s", tt.field)
			}
			if !strings.Contains(r.body, `aria-invalid="true"`) {
				t.Error("no field is marked invalid")
			}
			if strings.Contains(tt.field, "allow") || tt.field == "ask" {
				if !strings.Contains(r.body, ">\n"+html.EscapeString(tt.value)+"</textarea>") {
					t.Errorf("the typed %q is not kept", tt.value)
				}
			} else if regexp.MustCompile(`name="` + tt.field + `" value="[a-z-]*" checked`).MatchString(r.body) {
				t.Errorf("a refused %s shows a choice as made", tt.field)
			}
			got, _ := e.db.Project(ctx, "demo")
			if got.UpdatedAt != p.UpdatedAt || got.Agent.Verify != "" || got.Agent.Ask != nil {
				t.Fatalf("a refused form wrote %+v", got)
			}
		})
	}
	// A list with more bad lines than are named says how many more.
	form := settingsForm(p)
	form.Set("allow", strings.Repeat("a | b\n", 8))
	r := e.post(t, c, "/p/demo/settings", form)
	wantStatus(t, r, http.StatusBadRequest)
	wantBody(t, r, "allow, line 5: pattern", "allow: and 3 more bad lines")
	if strings.Contains(r.body, "line 6: pattern") {
		t.Error("more than five bad lines are named")
	}
}

func TestAPI_EditProjectSafety(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.project(t, "demo")
	ctx := context.Background()

	r := e.api(t, "PATCH", "/api/projects/demo", `{"permissionMode":"read-only","allow":["go test *"," npm test ",""],
		"ask":["git push *"],"sandbox":"off","network":"all","allowHosts":["api.example.com"]}`)
	wantStatus(t, r, http.StatusOK)
	wantBody(t, r, `"permissionMode": "read-only"`, `"allow": [`, `"npm test"`, `"sandbox": "off"`, `"network": "all"`,
		`"allowHosts": [`)
	got, _ := e.db.Project(ctx, "demo")
	a := got.Agent
	if a.PermissionMode != board.ModeReadOnly || !slices.Equal(a.Allow, []string{"go test *", "npm test"}) ||
		!slices.Equal(a.Ask, []string{"git push *"}) || a.Sandbox != board.SandboxOff || a.Network != board.NetworkAll ||
		!slices.Equal(a.AllowHosts, []string{"api.example.com"}) {
		t.Fatalf("after PATCH %+v", a)
	}

	// Each kind of bad value is refused with its message; nothing is written.
	for _, tt := range []struct{ body, want string }{
		{`{"allow":["ok","a ; b"]}`, `allow, line 2: pattern \"a ; b\": must be one simple command`},
		{`{"ask":["\"open"]}`, "unbalanced quotes or brackets"},
		{`{"allowHosts":["http://x.example"]}`, "give the host only"},
		{`{"permissionMode":"yolo"}`, `permission mode \"yolo\"`},
		{`{"sandbox":"maybe"}`, `sandbox \"maybe\"`},
		{`{"network":"wifi"}`, `network \"wifi\"`},
		{`{"allow":"go test *"}`, "invalid JSON body"},
		{`{"sandbox":"off","allow":["$X"]}`, "words must be literal"},
	} {
		r := e.api(t, "PATCH", "/api/projects/demo", tt.body)
		wantStatus(t, r, http.StatusBadRequest)
		wantBody(t, r, tt.want)
		if now, _ := e.db.Project(ctx, "demo"); now.UpdatedAt != got.UpdatedAt {
			t.Fatalf("refused %s wrote %+v", tt.body, now.Agent)
		}
	}

	// null keeps a list, [] clears it; "required" and "proxy" are the defaults.
	r = e.api(t, "PATCH", "/api/projects/demo", `{"allow":null,"ask":[],"sandbox":"required","network":"proxy"}`)
	wantStatus(t, r, http.StatusOK)
	got, _ = e.db.Project(ctx, "demo")
	if !slices.Equal(got.Agent.Allow, []string{"go test *", "npm test"}) || got.Agent.Ask != nil ||
		got.Agent.Sandbox != board.SandboxRequired || got.Agent.Network != board.NetworkProxy {
		t.Fatalf("after the second PATCH %+v", got.Agent)
	}
	if strings.Contains(r.body, `"sandbox"`) || strings.Contains(r.body, `"ask"`) {
		t.Errorf("defaults are written out: %s", r.body)
	}
}

func TestAPI_CreateProjectSafety(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	repo := t.TempDir()
	r := e.api(t, "POST", "/api/projects", `{"slug":"demo","repo":"`+repo+`","permissionMode":"ask",
		"allow":["go test *"],"ask":["git push *"],"sandbox":"off","network":"none","allowHosts":["*.example.com"]}`)
	wantStatus(t, r, http.StatusCreated)
	got, err := e.db.Project(context.Background(), "demo")
	if err != nil {
		t.Fatal(err)
	}
	a := got.Agent
	if a.PermissionMode != board.ModeAsk || !slices.Equal(a.Allow, []string{"go test *"}) || !slices.Equal(a.Ask, []string{"git push *"}) ||
		a.Sandbox != board.SandboxOff || a.Network != board.NetworkNone || !slices.Equal(a.AllowHosts, []string{"*.example.com"}) {
		t.Fatalf("created %+v", a)
	}
	for _, tt := range []struct{ body, want string }{
		{`"allow":["a | b"]`, `allow, line 1: pattern \"a | b\": must be one simple command`},
		{`"allowHosts":["bad host"]`, `allowHosts, line 1: allowed host \"bad host\"`},
		{`"permissionMode":"yolo"`, `permission mode \"yolo\"`},
		{`"sandbox":"maybe"`, `sandbox \"maybe\"`},
		{`"network":"wifi"`, `network \"wifi\"`},
	} {
		r := e.api(t, "POST", "/api/projects", `{"slug":"other","repo":"`+repo+`",`+tt.body+`}`)
		wantStatus(t, r, http.StatusBadRequest)
		wantBody(t, r, tt.want)
		if _, err := e.db.Project(context.Background(), "other"); board.ErrorCode(err) != board.ENOTFOUND {
			t.Fatalf("refused %s created the project (%v)", tt.body, err)
		}
	}
}

func TestPages_SafetyBadgesAndBanners(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ctx := context.Background()
	mk := func(slug string, a board.AgentSettings) {
		if _, err := e.db.CreateProject(ctx, board.Project{Slug: slug, Name: "Project " + slug, Repo: t.TempDir(),
			DefaultBranch: "main", Active: true, Agent: a}); err != nil {
			t.Fatal(err)
		}
		e.ticket(t, slug, "A ticket of "+slug, board.Backlog)
	}
	mk("open", board.AgentSettings{PermissionMode: board.ModeAsk, Sandbox: board.SandboxOff})
	mk("ro", board.AgentSettings{PermissionMode: board.ModeReadOnly})
	mk("planned", board.AgentSettings{PermissionMode: board.ModePlan})
	mk("plain", board.AgentSettings{})
	c := e.browser(t)
	badge := func(m string) string { return `<span class="sr-only">Permission mode: </span>` + m + `</span>` }
	const banner = `id="sandbox-off"`
	risk := html.EscapeString(sandboxOffRisk)

	for _, tt := range []struct{ slug, badge string }{{"open", "ask"}, {"ro", "read-only"}, {"planned", "plan"}} {
		r := e.get(t, c, "/p/"+tt.slug)
		wantStatus(t, r, http.StatusOK)
		wantBody(t, r, `<h1>Project `+tt.slug+` <span class="badge mode"`, badge(tt.badge))
		r = e.get(t, c, "/p/"+tt.slug+"/1")
		wantStatus(t, r, http.StatusOK)
		head := r.body[strings.Index(r.body, `class="ticket-head"`):]
		head = head[:strings.Index(head, "</h1>")]
		if !strings.Contains(head, badge(tt.badge)) {
			t.Errorf("the ticket header of %s lacks its %s badge: %s", tt.slug, tt.badge, head)
		}
	}
	for _, path := range []string{"/p/plain", "/p/plain/1", "/p/plain/settings"} {
		r := e.get(t, c, path)
		if strings.Contains(r.body, `class="badge mode"`) || strings.Contains(r.body, banner) {
			t.Errorf("%s of an auto, sandboxed project shows a mode badge or the sandbox banner", path)
		}
	}

	// The sandbox banner: on the board (with a link to the setting) and
	// the settings page; the overview marks the card; the status page and
	// the API list the warning.
	r := e.get(t, c, "/p/open")
	wantBody(t, r, banner, "Sandbox off.", risk, `href="/p/open/settings#sandbox"`)
	r = e.get(t, c, "/p/open/settings")
	wantBody(t, r, banner, risk, "Choose <em>required</em> below")
	r = e.get(t, c, "/")
	wantBody(t, r, `<span class="badge warn" title="`+risk+`">sandbox off</span>`, badge("ask"))
	if n := strings.Count(r.body, "sandbox off</span>"); n != 1 {
		t.Errorf("the overview marks %d projects sandbox off, want 1", n)
	}
	r = e.get(t, c, "/settings")
	wantBody(t, r, `id="safety-warnings"`, `Sandbox off in <a href="/p/open/settings#sandbox">open</a>`, risk,
		`<td>ask</td><td><span class="badge warn">off</span>`, `<td>read-only</td><td><span class="muted">required, network proxy</span>`)
	if strings.Count(r.body, "Sandbox off in") != 1 {
		t.Error("the status page warns about other projects")
	}

	var st struct {
		Projects []struct{ Slug string }
		Warnings []view.Warning
	}
	r = e.api(t, "GET", "/api/status", "")
	wantStatus(t, r, http.StatusOK)
	r.json(t, &st)
	if len(st.Projects) != 4 || len(st.Warnings) != 1 || st.Warnings[0].Project != "open" || st.Warnings[0].Kind != "sandbox-off" ||
		!strings.Contains(st.Warnings[0].Message, sandboxOffRisk) || !strings.Contains(st.Warnings[0].Message, "bonsai project edit open --sandbox required") {
		t.Fatalf("status %+v", st)
	}

	// Archived projects run nothing: no warning. No warning is an empty list.
	if _, err := e.db.ArchiveProject(ctx, "open"); err != nil {
		t.Fatal(err)
	}
	r = e.api(t, "GET", "/api/status", "")
	wantBody(t, r, `"warnings": []`)
	if strings.Contains(e.get(t, c, "/settings").body, `id="safety-warnings"`) {
		t.Error("the status page warns about an archived project")
	}
}

// TestStatus_SandboxProblem: when the sandbox the projects require cannot
// start, the status page says so with the reason and the fix, and the API
// carries it on each project that requires it.
func TestStatus_SandboxProblem(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.project(t, "demo")
	c := e.browser(t)
	if strings.Contains(e.get(t, c, "/settings").body, `id="sandbox-problem"`) {
		t.Fatal("a problem shown with no Sandbox check")
	}
	e.srv.opts.Sandbox = func() error { return errors.New("sandbox: bwrap not found on PATH") }
	r := e.get(t, c, "/settings")
	wantBody(t, r, `id="sandbox-problem"`, "bwrap not found on PATH", "apt-get install bubblewrap")
	r = e.api(t, "GET", "/api/status", "")
	wantBody(t, r, `"sandboxProblem": "sandbox: bwrap not found on PATH"`)
}
