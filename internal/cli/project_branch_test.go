package cli

import (
	"context"
	"io"
	"net/http"
	"net/http/cookiejar"
	neturl "net/url"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/bonsai-run/bonsai/internal/gittest"
)

// Issue 27, item 16: the web UI's "Add a project" pre-filled main and
// accepted a branch the repository does not have, where the CLI detected
// master. Both now go through projectBranch: the form leaves the branch
// empty (detect), and a missing branch is refused naming the ones there.
func TestServe_AddProjectDetectsAndChecksTheBranch(t *testing.T) {
	t.Parallel()
	ta := newTestApp(t)
	repo := gittest.Repo(t, filepath.Join(t.TempDir(), "old"), nil)
	gittest.Run(t, repo, "branch", "-m", "main", "master")
	ta.run("init")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var out syncBuffer
	login, _ := ta.serve(ctx, &out)
	base, token, _ := strings.Cut(login, "/?token=")
	jar, _ := cookiejar.New(nil)
	c := &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	do := func(c *http.Client, req *http.Request) (int, string) {
		t.Helper()
		res, err := c.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		return res.StatusCode, string(b)
	}
	api := func(method, path, body string) (int, string) {
		req, _ := http.NewRequest(method, base+path, strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+token)
		req.Header.Set("Content-Type", "application/json")
		return do(http.DefaultClient, req)
	}
	get := func(path string) string {
		req, _ := http.NewRequest(http.MethodGet, path, nil)
		_, b := do(c, req)
		return b
	}
	get(login)

	// The form: no branch pre-filled; a missing one is shown at its field.
	page := get(base + "/")
	if !strings.Contains(page, `<input id="p-branch" name="branch" value="" placeholder="detected: the repository's current branch">`) {
		t.Fatalf("the Add a project form's branch field:\n%s", regexp.MustCompile(`<input id="p-branch"[^>]*>`).FindString(page))
	}
	csrf := regexp.MustCompile(`name="_csrf" value="([^"]+)"`).FindStringSubmatch(page)[1]
	res, err := c.PostForm(base+"/projects", neturl.Values{"_csrf": {csrf}, "slug": {"typo"}, "repo": {repo}, "branch": {"main"}})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(res.Body)
	res.Body.Close()
	want := `branch &#34;main&#34; not found in ` + repo + ` (its branches: master); give one of them as the default branch`
	if res.StatusCode != http.StatusBadRequest || !regexp.MustCompile(`id="p-branch"[^>]*>\s*<p class="field-error">`+regexp.QuoteMeta(want)).Match(b) {
		t.Fatalf("POST /projects with branch main: %d\n%s", res.StatusCode, b)
	}
	res, err = c.PostForm(base+"/projects", neturl.Values{"_csrf": {csrf}, "slug": {"old"}, "repo": {repo}, "branch": {""}})
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusSeeOther {
		t.Fatalf("POST /projects with no branch: %d", res.StatusCode)
	}

	// The API: the same detection and check, and on edits too.
	if code, body := api("POST", "/api/projects", `{"slug":"viaapi","repo":"`+repo+`"}`); code != http.StatusCreated || !strings.Contains(body, `"defaultBranch": "master"`) {
		t.Fatalf("POST /api/projects without a branch: %d\n%s", code, body)
	}
	if code, body := api("POST", "/api/projects", `{"slug":"typo","repo":"`+repo+`","defaultBranch":"main"}`); code != http.StatusBadRequest || !strings.Contains(body, `(its branches: master)`) {
		t.Fatalf("POST /api/projects with branch main: %d\n%s", code, body)
	}
	if code, body := api("PATCH", "/api/projects/old", `{"defaultBranch":"trunk"}`); code != http.StatusBadRequest || !strings.Contains(body, `branch \"trunk\" not found`) {
		t.Fatalf("PATCH defaultBranch trunk: %d\n%s", code, body)
	}
	if show := ta.run("project", "show", "old"); !regexp.MustCompile(`(?m)^Branch: +master$`).MatchString(show) {
		t.Fatalf("project show old:\n%s", show)
	}
}
