package web

import (
	"context"
	"strings"
	"testing"

	"github.com/bonsai-run/bonsai/internal/board"
)

const sampleDiff = `diff --git a/main.go b/main.go
index 1111111..2222222 100644
--- a/main.go
+++ b/main.go
@@ -1,3 +1,4 @@
 package main
-func old() {}
+func newer() {}
+// <script>alert(1)</script>
diff --git a/docs/new.md b/docs/new.md
new file mode 100644
index 0000000..3333333
--- /dev/null
+++ b/docs/new.md
@@ -0,0 +1 @@
+hello
diff --git a/logo.png b/logo.png
index 4444444..5555555 100644
Binary files a/logo.png and b/logo.png differ
`

func TestParseDiff(t *testing.T) {
	t.Parallel()
	files, truncated := parseDiff(sampleDiff)
	if truncated || len(files) != 3 {
		t.Fatalf("%d files, truncated %v", len(files), truncated)
	}
	if f := files[0]; f.Name != "main.go" || f.Added != 2 || f.Deleted != 1 || len(f.Lines) != 5 || f.Lines[0].Kind != "hunk" {
		t.Errorf("main.go %+v", f)
	}
	if f := files[1]; f.Name != "docs/new.md" || f.Status != "added" || f.Added != 1 {
		t.Errorf("new.md %+v", f)
	}
	if !files[2].Binary {
		t.Errorf("logo.png is not binary: %+v", files[2])
	}
	long := "diff --git a/x b/x\n" + strings.Repeat("+line\n", maxDiffLines+10)
	files, truncated = parseDiff(long)
	if !truncated || len(files[0].Lines) != maxDiffLines || files[0].Added != maxDiffLines+10 {
		t.Errorf("long diff: truncated %v, %d lines, %d added", truncated, len(files[0].Lines), files[0].Added)
	}
}

func TestTicketDiff(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	c := e.browser(t)
	e.project(t, "demo")
	e.ticket(t, "demo", "t", board.InProgress)
	wantStatus(t, e.get(t, c, "/p/demo/1/diff"), 404) // no Diff configured
	if r := e.get(t, c, "/p/demo/1"); strings.Contains(r.body, "/p/demo/1/diff") {
		t.Error("the page loads a diff the server cannot make")
	}

	var asked board.Ticket
	e.srv.opts.Diff = func(_ context.Context, p board.Project, tk board.Ticket) (string, error) {
		asked = tk
		if p.Slug != "demo" {
			t.Errorf("project %s", p.Slug)
		}
		return sampleDiff, nil
	}
	wantBody(t, e.get(t, c, "/p/demo/1"), `hx-get="/p/demo/1/diff" hx-trigger="load"`)
	r := e.get(t, c, "/p/demo/1/diff")
	wantStatus(t, r, 200)
	wantBody(t, r, "3 files changed", `<span class="add-n">+3</span>`, "−1", `href="#diff-0">main.go`, `<span class="d-add">&#43;func newer() {}</span>`,
		"&#43;// &lt;script&gt;alert(1)&lt;/script&gt;", "Binary file.")
	if asked.Number != 1 {
		t.Errorf("diff asked for %+v", asked)
	}
	e.srv.opts.Diff = func(context.Context, board.Project, board.Ticket) (string, error) { return "", nil }
	wantBody(t, e.get(t, c, "/p/demo/1/diff"), "No branch yet")
	wantStatus(t, e.get(t, c, "/p/demo/7/diff"), 404)
}
